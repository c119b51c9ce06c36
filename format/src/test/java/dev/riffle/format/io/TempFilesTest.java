package dev.riffle.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Temporary files named for their process, and how abandoned ones are told apart. */
class TempFilesTest {
  @TempDir Path dir;

  @Test
  void aTempFileIsNamedForItsProcessAndPublishedByRename() throws Exception {
    Path target = dir.resolve("x.riffle");
    Path temp = TempFiles.newPath(target);
    ProcessIdentity me = ProcessIdentity.current();
    assertThat(temp.getFileName().toString())
        .startsWith(".x.riffle." + me.pid() + "." + me.machineTag() + ".")
        .endsWith(".riffle-tmp");
    assertThat(TempFiles.isTempName(temp.getFileName().toString())).isTrue();
    Files.writeString(temp, "rows");
    // Being written by this process: never abandoned, whatever its age.
    Files.setLastModifiedTime(temp, FileTime.from(Instant.EPOCH));
    assertThat(TempFiles.abandoned(dir, Duration.ZERO, Instant.now())).isEmpty();
    TempFiles.publish(temp, target);
    assertThat(Files.readString(target)).isEqualTo("rows");
    assertThat(temp).doesNotExist();

    Path other = TempFiles.newPath(target);
    Files.writeString(other, "discarded");
    TempFiles.discard(other);
    assertThat(other).doesNotExist();
    try (var files = Files.list(dir)) {
      assertThat(files.toList()).containsExactly(target);
    }
  }

  @Test
  void aTempFileOfAGoneProcessIsAbandonedAtOnce() throws Exception {
    Process p = new ProcessBuilder("true").start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    ProcessIdentity me = ProcessIdentity.current();
    String gone = ".x.riffle." + p.pid() + "." + me.machineTag() + ".0123abcd.riffle-tmp";
    String elsewhere = ".x.riffle." + p.pid() + ".ffffffff.0123abcd.riffle-tmp";
    String alive =
        ".x.riffle."
            + ProcessHandle.current().pid()
            + "."
            + me.machineTag()
            + ".0a0b0c0d.riffle-tmp";
    for (String n : List.of(gone, elsewhere, alive, "x.riffle", ".x.riffle.tmp", "notes.tmp")) {
      Files.writeString(dir.resolve(n), "left");
    }
    List<TempFiles.Leftover> found = TempFiles.abandoned(dir, null, Instant.now());
    // This process's own name not in flight (left by an earlier process with its pid) goes too.
    assertThat(found)
        .extracting(l -> l.path().getFileName().toString())
        .containsExactlyInAnyOrder(gone, alive);
    assertThat(found)
        .filteredOn(l -> l.path().getFileName().toString().equals(gone))
        .singleElement()
        .satisfies(
            l -> {
              assertThat(l.why())
                  .isEqualTo("its writer, process " + p.pid() + " on this host, is gone");
              assertThat(l.byteLength()).isEqualTo(4);
            });
    // Another machine's: only by age.
    Files.setLastModifiedTime(
        dir.resolve(elsewhere), FileTime.from(Instant.now().minus(Duration.ofHours(3))));
    assertThat(TempFiles.abandoned(dir, Duration.ofHours(1), Instant.now()))
        .extracting(l -> l.path().getFileName().toString())
        .containsExactlyInAnyOrder(gone, alive, elsewhere);
  }

  @Test
  void durationsAreParsedAndPrinted() {
    assertThat(Durations.parse("0")).isEqualTo(Duration.ZERO);
    assertThat(Durations.parse("90s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(Durations.parse("15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(Durations.parse("15min")).isEqualTo(Duration.ofMinutes(15));
    assertThat(Durations.parse(" 1h ")).isEqualTo(Duration.ofHours(1));
    assertThat(Durations.parse("2D")).isEqualTo(Duration.ofDays(2));
    assertThat(Durations.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    for (String bad : List.of("", "h", "-1h", "1.5h", "1 week")) {
      assertThatThrownBy(() -> Durations.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a duration: '" + bad + "'");
    }
    // A duration, only too large: said so, in the unit typed.
    assertThat(Durations.parse("000999999999d")).isEqualTo(Duration.ofDays(999_999_999));
    assertThatThrownBy(() -> Durations.parse("99999999999s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duration too large: '99999999999s' (at most 999999999s)");
    assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250 ms");
    assertThat(Durations.format(Duration.ofSeconds(45))).isEqualTo("45 s");
    assertThat(Durations.format(Duration.ofSeconds(725))).isEqualTo("12 min 5 s");
    assertThat(Durations.format(Duration.ofHours(1))).isEqualTo("1 h");
    assertThat(Durations.format(Duration.ofMinutes(150))).isEqualTo("2 h 30 min");
    assertThat(Durations.format(Duration.ofHours(50))).isEqualTo("2 d 2 h");
  }

  @Test
  void thisProcessIsAliveAndAnExitedOneIsGone() throws Exception {
    ProcessIdentity me = ProcessIdentity.current();
    assertThat(me.pid()).isEqualTo(ProcessHandle.current().pid());
    if (!me.sameMachine()) {
      return; // no boot id or pid namespace here: nothing is judged by pid
    }
    assertThat(me.liveness()).isEqualTo(ProcessIdentity.Liveness.ALIVE);
    Process p = new ProcessBuilder("true").start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(new ProcessIdentity(me.host(), me.machine(), p.pid(), null).liveness())
        .isEqualTo(ProcessIdentity.Liveness.GONE);
    // The same pid with another start instant is a reused pid: the recorded process is gone.
    assertThat(
            new ProcessIdentity(me.host(), me.machine(), me.pid(), me.start().minusSeconds(3600))
                .liveness())
        .isEqualTo(ProcessIdentity.Liveness.GONE);
    assertThat(new ProcessIdentity("elsewhere", me.machine(), p.pid(), null).liveness())
        .isEqualTo(ProcessIdentity.Liveness.UNKNOWN);
  }
}
