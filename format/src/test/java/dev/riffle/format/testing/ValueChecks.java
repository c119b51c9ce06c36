package dev.riffle.format.testing;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.Range;
import org.apache.arrow.vector.compare.RangeEqualsVisitor;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;

/**
 * Exact comparison of values of any kind but floats (which {@link FloatBits} compares bit for bit):
 * validity, type, and every byte (integers, decimals, binaries; strings byte for byte, hence code
 * point for code point), item by item for lists; dictionary-encoded fields by the value their code
 * stands for, since a file renumbers codes.
 */
public final class ValueChecks {
  private ValueChecks() {}

  /**
   * Fails unless row {@code g} of every column of {@code got} is row {@code w} of {@code source}.
   *
   * @param sourceDicts the source's dictionaries, {@code gotDicts} the file's
   */
  public static void assertSameRow(
      String what,
      VectorSchemaRoot source,
      DictionaryProvider sourceDicts,
      int w,
      VectorSchemaRoot got,
      DictionaryProvider gotDicts,
      int g) {
    for (FieldVector want : source.getFieldVectors()) {
      String name = want.getName();
      FieldVector have = got.getVector(name);
      String at = what + ", " + name + " row " + w;
      if (have == null) {
        throw new AssertionError(at + ": no such column read back");
      }
      DictionaryEncoding enc = want.getField().getDictionary();
      if (enc != null) {
        String a = decode(want, w, sourceDicts.lookup(enc.getId()));
        String b = decode(have, g, gotDicts.lookup(have.getField().getDictionary().getId()));
        if (a == null ? b != null : !a.equals(b)) {
          throw new AssertionError(at + " is " + quote(a) + ", read back " + quote(b));
        }
      } else if (!new RangeEqualsVisitor(want, have).rangeEquals(new Range(w, g, 1))) {
        throw new AssertionError(
            at + " is " + describe(want, w) + ", read back " + describe(have, g));
      }
    }
  }

  private static String decode(FieldVector codes, int i, Dictionary dict) {
    if (codes.isNull(i)) {
      return null;
    }
    int code = (int) ((BaseIntVector) codes).getValueAsLong(i);
    VarCharVector values = (VarCharVector) dict.getVector();
    if (code < 0 || code >= values.getValueCount()) {
      return "<code " + code + " of " + values.getValueCount() + ">";
    }
    return new String(values.get(code), StandardCharsets.UTF_8);
  }

  private static String quote(String s) {
    return s == null
        ? "null"
        : "\"" + s.replace("\0", "\\0") + "\" " + s.codePoints().count() + " code points";
  }

  /** A value for a message: its object form, shortened, and for fixed widths its bytes. */
  public static String describe(FieldVector v, int i) {
    if (v.isNull(i)) {
      return "null";
    }
    String s;
    try {
      Object o = v.getObject(i);
      s = o instanceof byte[] b ? b.length + " bytes " + hex(b) : String.valueOf(o);
    } catch (RuntimeException e) {
      s = "<" + e + ">";
    }
    if (s.length() > 300) {
      s = s.substring(0, 300) + "… (" + s.length() + " chars)";
    }
    if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector f && f.getTypeWidth() > 0) {
      byte[] b = new byte[f.getTypeWidth()];
      f.getDataBuffer().getBytes((long) i * b.length, b);
      s += " (bytes " + HexFormat.of().formatHex(b) + ")";
    }
    return s;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b, 0, Math.min(b.length, 64)) + (b.length > 64 ? "…" : "");
  }
}
