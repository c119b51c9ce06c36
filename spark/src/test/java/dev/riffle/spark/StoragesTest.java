package dev.riffle.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.dataset.storage.Storage;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which storage a location opens as, and its canonical form, without a Spark session. */
class StoragesTest {
  @TempDir Path dir;

  @Test
  void localPathsAndFileUrisAreLocalAndAbsolute() throws Exception {
    String canonical = Storages.canonical(dir.resolve("ds").toString());
    assertThat(canonical).isEqualTo(new LocalStorage(dir.resolve("ds")).uri());
    assertThat(Storages.canonical(dir.resolve("ds").toUri().toString())).isEqualTo(canonical);
    assertThat(Storages.isLocal(canonical)).isTrue();
    assertThat(Storages.isLocal("relative/ds")).isTrue();
    // No Hadoop configuration, and no session, is needed for a local location.
    assertThat(Storages.driverConf(canonical)).isNull();
    try (Storage s = Storages.open(canonical, null)) {
      assertThat(s).isInstanceOf(LocalStorage.class);
    }
  }

  @Test
  void otherSchemesKeepTheirUriNormalized() {
    assertThat(Storages.canonical("s3a://bucket/a/../b/ds")).isEqualTo("s3a://bucket/b/ds");
    assertThat(Storages.canonical("hdfs://nn:8020/data/ds")).isEqualTo("hdfs://nn:8020/data/ds");
    assertThat(Storages.isLocal("s3a://bucket/ds")).isFalse();
    assertThatThrownBy(() -> Storages.canonical("s3a:bucket"))
        .hasMessageContaining("not a hierarchical dataset URI: 's3a:bucket'");
    assertThatThrownBy(() -> Storages.canonical(" "))
        .hasMessageContaining("riffle needs a dataset location");
    assertThatThrownBy(() -> Storages.open("nosuchfs://bucket/ds", new Configuration()))
        .hasMessageContaining("cannot open the dataset location nosuchfs://bucket/ds")
        .hasMessageContaining("no Hadoop file system for the scheme nosuchfs");
  }
}
