package dev.riffle.convert.h5ad;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jhdf.api.Dataset;
import io.jhdf.api.Group;
import io.jhdf.api.Node;
import io.jhdf.object.datatype.EnumDataType;
import java.lang.reflect.Array;
import java.util.List;

/**
 * AnnData's uns as JSON, where it is representable: nested dicts, scalars (numbers, strings,
 * booleans) and arrays of up to {@link #MAX_ELEMENTS} elements in one or two dimensions. What is
 * not (dataframes, sparse matrices, categoricals, big arrays) is named in {@code skipped}.
 */
final class Uns {
  static final int MAX_ELEMENTS = 10_000;
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Uns() {}

  /** uns as a JSON object. */
  static String json(Group uns, List<String> skipped) {
    JsonNode n = node(uns, "uns", skipped);
    try {
      return MAPPER.writeValueAsString(n == null ? F.objectNode() : n);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  private static JsonNode node(Node n, String path, List<String> skipped) {
    String enc = Hdf.encoding(n);
    if (n instanceof Group) {
      if (!enc.isEmpty() && !enc.equals("dict")) {
        skipped.add(path + " (" + enc + ")");
        return null;
      }
      ObjectNode o = F.objectNode();
      for (Node c : ((Group) n).getChildren().values()) {
        JsonNode v;
        try {
          v = node(c, path + "/" + c.getName(), skipped);
        } catch (RuntimeException e) {
          // uns is metadata: an entry jhdf cannot read is listed as skipped, not fatal.
          skipped.add(path + "/" + c.getName() + " (unreadable: " + Hdf.oneLine(e) + ")");
          continue;
        }
        if (v != null) {
          o.set(c.getName(), v);
        }
      }
      return o;
    }
    Dataset d = (Dataset) n;
    boolean bool = d.getDataType() instanceof EnumDataType;
    if (d.isScalar()) {
      return scalar(d.getData(), bool);
    }
    if (d.getSize() == 0) {
      // jhdf returns no array for an empty dataset.
      return F.arrayNode();
    }
    if (d.getDimensions().length > 2 || d.getSize() > MAX_ELEMENTS || d.isCompound()) {
      skipped.add(path + " (" + d.getSize() + " elements)");
      return null;
    }
    return array(Hdf.all(d), bool);
  }

  private static JsonNode array(Object a, boolean bool) {
    ArrayNode out = F.arrayNode();
    int n = Array.getLength(a);
    for (int i = 0; i < n; i++) {
      Object e = Array.get(a, i);
      out.add(e != null && e.getClass().isArray() ? array(e, bool) : scalar(e, bool));
    }
    return out;
  }

  private static JsonNode scalar(Object v, boolean bool) {
    if (v == null) {
      return F.nullNode();
    }
    if (bool) {
      return F.booleanNode("TRUE".equalsIgnoreCase(String.valueOf(v)));
    }
    if (v instanceof Double || v instanceof Float) {
      return F.numberNode(((Number) v).doubleValue());
    }
    if (v instanceof java.math.BigInteger) {
      // uint64: jhdf's BigInteger, whose longValue() would wrap values from 2^63 to negatives.
      return F.numberNode((java.math.BigInteger) v);
    }
    if (v instanceof Number) {
      return F.numberNode(((Number) v).longValue());
    }
    if (v instanceof Boolean) {
      return F.booleanNode((Boolean) v);
    }
    return F.textNode(String.valueOf(v));
  }
}
