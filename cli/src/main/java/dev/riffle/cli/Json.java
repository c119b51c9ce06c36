package dev.riffle.cli;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Writer;

/**
 * The one Jackson configuration all commands share (an ObjectMapper is thread-safe): every
 * generator it makes writes floats and doubles as {@link JsonNumbers} says.
 */
final class Json {
  static final ObjectMapper MAPPER =
      new ObjectMapper(
          new JsonFactoryBuilder().addDecorator((f, g) -> JsonNumbers.decorate(g)).build());

  private Json() {}

  /**
   * One JSON object on one line, numbers as {@link JsonNumbers} writes them (a node's toString
   * would write Jackson's own forms).
   */
  static String line(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree that does not write", e);
    }
  }

  /**
   * A generator for JSON lines onto {@code out}: it leaves {@code out} open (it is the command's
   * stdout) and writes no separator between root values, since {@link JsonLines} ends each with a
   * newline itself.
   */
  static JsonGenerator lineGenerator(Writer out) throws IOException {
    JsonGenerator g = MAPPER.getFactory().createGenerator(out);
    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    g.setRootValueSeparator(null);
    return g;
  }
}
