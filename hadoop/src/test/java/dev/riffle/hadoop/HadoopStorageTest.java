package dev.riffle.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HadoopStorage} against the storage contract on {@code file:} (a temporary directory);
 * {@code HadoopStorageS3IT} runs it on {@code s3a:}.
 */
class HadoopStorageTest {

  @Test
  void configurationFromEnvironment() {
    Configuration conf =
        HadoopStorage.fromEnvironment(
            Map.of(
                "RIFFLE_S3_ENDPOINT", "http://127.0.0.1:7480",
                "RIFFLE_S3_REGION", "us-east-1",
                "RIFFLE_S3_ACCESS_KEY", "ak",
                "RIFFLE_S3_SECRET_KEY", "sk"));
    assertThat(conf.get("fs.s3a.endpoint")).isEqualTo("http://127.0.0.1:7480");
    assertThat(conf.get("fs.s3a.endpoint.region")).isEqualTo("us-east-1");
    assertThat(conf.getBoolean("fs.s3a.path.style.access", false)).isTrue();
    assertThat(conf.getBoolean("fs.s3a.connection.ssl.enabled", true)).isFalse();
    assertThat(conf.get("fs.s3a.signing-algorithm")).isEqualTo("AWS4UnsignedPayloadSignerType");
    assertThat(conf.get("fs.s3a.input.stream.type")).isEqualTo("classic");
    assertThat(conf.get("fs.s3a.aws.credentials.provider"))
        .isEqualTo("org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    assertThat(conf.get("fs.s3a.access.key")).isEqualTo("ak");
    assertThat(conf.get("fs.s3a.secret.key")).isEqualTo("sk");

    Configuration tls = HadoopStorage.s3aConfiguration("https://s3.example.com", null, null, null);
    assertThat(tls.getBoolean("fs.s3a.connection.ssl.enabled", false)).isTrue();
    assertThat(tls.get("fs.s3a.access.key")).isNull();

    Configuration none = HadoopStorage.fromEnvironment(Map.of());
    assertThat(none.get("fs.s3a.endpoint")).isNotEqualTo("http://127.0.0.1:7480");
    assertThat(none.get("fs.s3a.access.key")).isNull();
  }

  @Nested
  class FileScheme extends AbstractStorageContractTest {
    @TempDir Path dir;

    @Override
    protected Storage newStorage() throws IOException {
      return new HadoopStorage(dir.resolve("dataset").toUri().toString(), new Configuration());
    }

    @Test
    void errorsAndNamesCarryTheUri() throws Exception {
      assertThat(storage.uri()).startsWith("file:/").endsWith("/dataset");
      assertThatThrownBy(() -> storage.open("x/missing.bin"))
          .isInstanceOf(NoSuchFileException.class)
          .hasMessage(storage.uri() + "/x/missing.bin");
      storage.createIfAbsent("m.json", new byte[] {1});
      assertThatThrownBy(() -> storage.createIfAbsent("m.json", new byte[] {2}))
          .isInstanceOf(FileAlreadyExistsException.class)
          .hasMessage(storage.uri() + "/m.json");
      try (var src = storage.open("m.json")) {
        assertThat(src.name()).isEqualTo(storage.uri() + "/m.json");
      }
    }

    @Test
    void sharesTheDirectoryWithLocalStorage() throws Exception {
      LocalStorage local = new LocalStorage(dir.resolve("dataset"));
      try (OutputStream out = storage.create("data/f.bin")) {
        out.write(new byte[] {7, 8});
      }
      local.createIfAbsent("_m/v1.json", new byte[] {1});
      assertThatThrownBy(() -> storage.createIfAbsent("_m/v1.json", new byte[] {2}))
          .isInstanceOf(FileAlreadyExistsException.class);
      storage.createIfAbsent("_m/v2.json", new byte[] {3});
      assertThatThrownBy(() -> local.createIfAbsent("_m/v2.json", new byte[] {4}))
          .isInstanceOf(FileAlreadyExistsException.class);
      // No Hadoop .crc side files, no leftover temporary files.
      assertThat(local.list("data")).containsExactly("f.bin");
      assertThat(local.list("_m")).containsExactly("v1.json", "v2.json");
      try (Stream<Path> all = Files.walk(dir)) {
        assertThat(all.map(p -> p.getFileName().toString()))
            .noneMatch(n -> n.endsWith(".crc") || n.endsWith(".tmp"));
      }
      assertThat(storage.readAll("data/f.bin")).containsExactly(7, 8);
    }
  }
}
