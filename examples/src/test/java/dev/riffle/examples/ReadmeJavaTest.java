package dev.riffle.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README quotes QuickStart.java whole and the Maven coordinates to build it with: both must be
 * what this module compiles, runs (QuickStartTest) and depends on, or the README has drifted.
 */
class ReadmeJavaTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void readmeQuotesTheExampleVerbatim() throws Exception {
    String source =
        Files.readString(
            ROOT.resolve("examples/src/main/java/dev/riffle/examples/QuickStart.java"));
    // The README's other Java block, the DJL fragment, is the djl module's (ReadmeSnippetTest).
    List<String> java =
        blocks("java").stream().filter(b -> b.startsWith("package dev.riffle.examples;")).toList();
    assertThat(java).as("```java blocks of README.md that hold QuickStart").hasSize(1);
    assertThat(java.get(0))
        .as("README.md's Java block against examples/.../QuickStart.java (copy the file over)")
        .isEqualTo(source);
  }

  @Test
  void readmeNamesTheDependencyThisModuleBuildsWith() throws Exception {
    List<String> xml = blocks("xml");
    assertThat(xml).as("```xml blocks of README.md").hasSize(1);
    String pom = Files.readString(ROOT.resolve("examples/pom.xml"));
    String dependency = xml.get(0);
    assertThat(dependency)
        .contains("<groupId>dev.riffle</groupId>")
        .contains("<artifactId>riffle-loader</artifactId>")
        .contains("<version>" + System.getProperty("riffle.version") + "</version>");
    // This module's one compile dependency is the one the README names.
    assertThat(pom).contains("<artifactId>riffle-loader</artifactId>");
    assertThat(pom.split("<dependency>", -1)).hasSize(2);
  }

  /** The fenced blocks of README.md with this info string, each with its trailing newline. */
  static List<String> blocks(String lang) throws Exception {
    List<String> out = new ArrayList<>();
    StringBuilder cur = null;
    for (String line : Files.readAllLines(ROOT.resolve("README.md"))) {
      if (cur == null && line.equals("```" + lang)) {
        cur = new StringBuilder();
      } else if (cur != null && line.equals("```")) {
        out.add(cur.toString());
        cur = null;
      } else if (cur != null) {
        cur.append(line).append('\n');
      }
    }
    return out;
  }
}
