package dev.riffle.convert;

import dev.riffle.convert.ArrowIpcReaders.Problem;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The schema of an Arrow IPC input as its messages lay it out, to check each parsed batch against
 * before Arrow loads it into vectors. Arrow checks a vector's buffers against that vector's own
 * field node only after loading, and sets every vector to the batch's length on the way: a batch
 * whose nodes disagree with its length, or whose buffers are shorter than its lengths need, makes a
 * vector reallocate while it loads, which fails part way and loses the new buffer. So: one node per
 * field, every node as long as its parent implies, null counts within lengths, and every fixed-size
 * buffer (validity when there are nulls, offsets, fixed-width values) long enough. Variable-size
 * values are checked by Arrow's full validation after loading.
 */
final class ArrowIpcShape {
  private final List<Field> fields;
  private final Map<Long, Field> dictionaries = new HashMap<>();
  private final boolean views;

  /**
   * @param schema as the messages carry it: an encoded field has its value type
   */
  ArrowIpcShape(Schema schema) {
    this.fields = schema.getFields();
    this.views = addDictionaries(fields);
  }

  /** Notes each encoded field's values as a plain field; says whether any type has views. */
  private boolean addDictionaries(List<Field> fs) {
    boolean anyViews = false;
    for (Field f : fs) {
      if (f.getDictionary() != null) {
        dictionaries.put(
            f.getDictionary().getId(),
            new Field(
                f.getName(),
                new FieldType(f.isNullable(), f.getType(), null, f.getMetadata()),
                f.getChildren()));
      }
      anyViews |= !TypeLayout.getTypeLayout(f.getType()).isFixedBufferCount();
      anyViews |= addDictionaries(f.getChildren());
    }
    return anyViews;
  }

  /** Whether a field of the schema is encoded with this dictionary. */
  boolean hasDictionary(long id) {
    return dictionaries.containsKey(id);
  }

  void checkRecordBatch(ArrowRecordBatch batch, String where) throws Problem {
    new Walk(batch, where).all(fields);
  }

  void checkDictionaryBatch(long id, ArrowRecordBatch batch, String where) throws Problem {
    new Walk(batch, where).all(List.of(dictionaries.get(id)));
  }

  /** One batch's nodes and buffers, taken in schema order as Arrow's loader takes them. */
  private final class Walk {
    private final ArrowRecordBatch batch;
    private final String where;
    private final List<ArrowFieldNode> nodes;
    private final List<ArrowBuf> buffers;

    /** Buffer sizes mean something only uncompressed and with a fixed number per type. */
    private final boolean sizes;

    private int node;
    private int buffer;

    Walk(ArrowRecordBatch batch, String where) {
      this.batch = batch;
      this.where = where;
      this.nodes = batch.getNodes();
      this.buffers = batch.getBuffers();
      this.sizes =
          !views
              && batch.getBodyCompression().getCodec()
                  == CompressionUtil.CodecType.NO_COMPRESSION.getType();
    }

    void all(List<Field> fs) throws Problem {
      for (Field f : fs) {
        field(f, batch.getLength());
      }
      if (node != nodes.size()) {
        throw new Problem(
            where + " has " + nodes.size() + " field nodes where its schema has " + node);
      }
      if (sizes && buffer != buffers.size()) {
        throw new Problem(
            where + " has " + buffers.size() + " buffers where its schema has " + buffer);
      }
    }

    /**
     * @param expected the length the parent implies, or -1 if it implies none
     */
    private void field(Field f, long expected) throws Problem {
      if (node >= nodes.size()) {
        throw new Problem(
            where + " has " + nodes.size() + " field nodes, fewer than its schema has fields");
      }
      ArrowFieldNode n = nodes.get(node++);
      long length = n.getLength();
      if (expected >= 0 && length != expected) {
        throw new Problem(
            where + " has " + expected + " rows where field '" + f.getName() + "' has " + length);
      }
      if (n.getNullCount() < 0 || n.getNullCount() > length) {
        throw new Problem(
            where
                + " gives field '"
                + f.getName()
                + "' "
                + n.getNullCount()
                + " nulls in "
                + length
                + " values");
      }
      // A batch holds only the indices of an encoded field.
      ArrowType type = f.getDictionary() != null ? f.getDictionary().getIndexType() : f.getType();
      if (sizes) {
        buffers(f, type, n);
      }
      if (f.getDictionary() != null) {
        return;
      }
      long child = -1;
      if (type instanceof ArrowType.Struct) {
        child = length;
      } else if (type instanceof ArrowType.FixedSizeList) {
        child = length * ((ArrowType.FixedSizeList) type).getListSize();
      }
      for (Field c : f.getChildren()) {
        field(c, child);
      }
    }

    private void buffers(Field f, ArrowType type, ArrowFieldNode n) throws Problem {
      List<BufferLayout> layouts = TypeLayout.getTypeLayout(type).getBufferLayouts();
      if (buffer + layouts.size() > buffers.size()) {
        throw new Problem(
            where + " has " + buffers.size() + " buffers, fewer than its schema's fields need");
      }
      // Union type ids and offsets, and list views' offsets, are one per value, not one more:
      // left to Arrow's validation, like the values of variable-size types.
      boolean checked =
          !(type instanceof ArrowType.Union
              || type instanceof ArrowType.ListView
              || type instanceof ArrowType.LargeListView);
      boolean variable = false;
      for (BufferLayout l : layouts) {
        variable |= l.getType() == BufferLayout.BufferType.OFFSET;
      }
      long length = n.getLength();
      for (BufferLayout l : layouts) {
        ArrowBuf b = buffers.get(buffer++);
        long need = 0;
        if (!checked) {
          need = 0;
        } else if (l.getType() == BufferLayout.BufferType.VALIDITY) {
          // Without nulls Arrow makes its own validity buffer, so writers may leave it empty.
          need = n.getNullCount() > 0 ? (length + 7) / 8 : 0;
        } else if (l.getType() == BufferLayout.BufferType.OFFSET) {
          need = length > 0 ? (length + 1) * l.getTypeBitWidth() / 8 : 0;
        } else if (l.getType() == BufferLayout.BufferType.DATA && !variable) {
          need = (length * l.getTypeBitWidth() + 7) / 8;
        }
        if (b.capacity() < need) {
          throw new Problem(
              where
                  + " gives field '"
                  + f.getName()
                  + "' a "
                  + l.getType().getName()
                  + " buffer of "
                  + b.capacity()
                  + " bytes where its "
                  + length
                  + " values need "
                  + need);
        }
      }
    }
  }
}
