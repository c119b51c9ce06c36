package dev.riffle.convert;

import java.util.List;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.NonNullableStructVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;

/** The sinks of Parquet groups: structs, lists (and maps, which are lists of entries). */
final class GroupSinks {
  private GroupSinks() {}

  /** A struct, or the record itself: its fields open and close with it. */
  static class Struct extends GroupConverter implements VectorSink {
    private final NonNullableStructVector vector;
    private final List<VectorSink> children;
    int count;

    Struct(NonNullableStructVector vector, List<VectorSink> children) {
      this.vector = vector;
      this.children = children;
    }

    @Override
    public Converter converter() {
      return this;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return children.get(fieldIndex).converter();
    }

    @Override
    public void start() {
      for (VectorSink c : children) {
        c.openSlot(count);
      }
    }

    @Override
    public void end() {
      for (VectorSink c : children) {
        c.closeSlot(count);
      }
      if (vector instanceof StructVector) {
        ((StructVector) vector).setIndexDefined(count);
      }
      count++;
    }

    @Override
    public int count() {
      return count;
    }

    @Override
    public void appendNull() {
      if (vector instanceof StructVector) {
        ((StructVector) vector).setNull(count);
      }
      for (VectorSink c : children) {
        c.appendNull();
      }
      count++;
    }

    @Override
    public void reset() {
      count = 0;
      children.forEach(VectorSink::reset);
    }
  }

  /** The top-level record: a struct without a vector of its own. */
  static final class Record extends Struct {
    Record(List<VectorSink> children) {
      super(null, children);
    }
  }

  /**
   * A LIST or MAP group: each start/end is one list value, whose elements are what the repeated
   * child delivers in between.
   */
  static final class ListGroup extends GroupConverter implements VectorSink {
    private final ListVector vector;
    private final VectorSink element;
    private final Converter repeated;
    private int count;
    private int first;

    ListGroup(ListVector vector, VectorSink element, Converter repeated) {
      this.vector = vector;
      this.element = element;
      this.repeated = repeated;
    }

    @Override
    public Converter converter() {
      return this;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return repeated;
    }

    @Override
    public void start() {
      vector.startNewValue(count);
      first = element.count();
    }

    @Override
    public void end() {
      vector.endValue(count, element.count() - first);
      count++;
    }

    @Override
    public int count() {
      return count;
    }

    @Override
    public void appendNull() {
      vector.setNull(count);
      count++;
    }

    @Override
    public void reset() {
      count = 0;
      element.reset();
    }
  }

  /**
   * The repeated group of a three-level list: each start/end is one element, null when the element
   * inside was absent.
   */
  static final class Repeated extends GroupConverter {
    private final VectorSink element;
    private int mark;

    Repeated(VectorSink element) {
      this.element = element;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return element.converter();
    }

    @Override
    public void start() {
      mark = element.count();
      element.openSlot(mark);
    }

    @Override
    public void end() {
      element.closeSlot(mark);
    }
  }

  /**
   * A repeated field outside a LIST group: a list that the enclosing group opens and closes, whose
   * elements are the repetitions.
   */
  static final class ImplicitList implements VectorSink {
    private final ListVector vector;
    private final VectorSink element;
    private int count;
    private int first;

    ImplicitList(ListVector vector, VectorSink element) {
      this.vector = vector;
      this.element = element;
    }

    @Override
    public Converter converter() {
      return element.converter();
    }

    @Override
    public int count() {
      return count;
    }

    @Override
    public void openSlot(int position) {
      vector.startNewValue(count);
      first = element.count();
    }

    @Override
    public void closeSlot(int position) {
      vector.endValue(count, element.count() - first);
      count++;
    }

    @Override
    public void appendNull() {
      // The list cannot be null: an absent parent gives an empty one.
      vector.startNewValue(count);
      vector.endValue(count, 0);
      count++;
    }

    @Override
    public void reset() {
      count = 0;
      element.reset();
    }
  }
}
