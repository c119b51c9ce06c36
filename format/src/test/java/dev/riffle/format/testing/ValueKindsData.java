package dev.riffle.format.testing;

import static dev.riffle.format.testing.TypeCase.f;
import static dev.riffle.format.testing.TypeCase.notNull;

import dev.riffle.format.schema.TypeSupport;
import dev.riffle.format.testing.AdversarialInts.Regime;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Rows of every non-float value kind for {@code ValueKindsTest}: integers of each width and
 * signedness, dates, times, timestamps (every unit, with and without a time zone) and durations
 * ({@link AdversarialInts}); lists of integers (sorted ids, unsorted, duplicates, one value, a
 * constant step, extremes whose deltas need 63 or 64 bits; empty, one item, a few, thousands);
 * strings and binaries (empty, 100 KB, multi-byte UTF-8, embedded NUL bytes, a few repeated, all
 * distinct); fixed-size binaries; booleans (runs, alternating, random); decimals of 128 and 256
 * bits up to their precision, negative; categoricals with int8 and int16 codes. Each column is
 * filled in runs of rows that share a regime and a null rate (none, isolated nulls, half, a run of
 * nulls), with forced runs that make the writer use each encoding a test checks it covers.
 */
public final class ValueKindsData {
  private ValueKindsData() {}

  /** Entries of the int8 and int16 categoricals' dictionaries: every code up to int8's 127. */
  public static final int CAT8_SIZE = 128;

  public static final int CAT16_SIZE = 3000;

  private static final long CAT8_ID = 81;
  private static final long CAT16_ID = 82;

  /** Integer fields by name, with their width and signedness. */
  public static final List<Field> INTS = new ArrayList<>();

  static {
    for (int bits : new int[] {8, 16, 32, 64}) {
      INTS.add(f("i" + bits, new ArrowType.Int(bits, true)));
      INTS.add(f("u" + bits, new ArrowType.Int(bits, false)));
    }
    INTS.add(notNull("i32nn", new ArrowType.Int(32, true)));
    INTS.add(f("date32", new ArrowType.Date(DateUnit.DAY)));
    INTS.add(f("date64", new ArrowType.Date(DateUnit.MILLISECOND)));
    INTS.add(f("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, "UTC")));
    INTS.add(f("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, "Europe/Paris")));
    INTS.add(f("ts_us", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)));
    INTS.add(f("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, "America/New_York")));
    INTS.add(f("time32", new ArrowType.Time(TimeUnit.MILLISECOND, 32)));
    INTS.add(f("time64", new ArrowType.Time(TimeUnit.NANOSECOND, 64)));
    INTS.add(f("dur", new ArrowType.Duration(TimeUnit.MICROSECOND)));
  }

  public static final Schema SCHEMA = schema();

  private static Schema schema() {
    List<Field> fields = new ArrayList<>(INTS);
    fields.add(f("l_i32", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(32, true))));
    fields.add(f("l_i64n", ArrowType.List.INSTANCE, f("item", new ArrowType.Int(64, true))));
    fields.add(
        f("l_u64", ArrowType.LargeList.INSTANCE, notNull("item", new ArrowType.Int(64, false))));
    fields.add(f("l_i8", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(8, true))));
    fields.add(
        notNull("l_u16", ArrowType.List.INSTANCE, notNull("item", new ArrowType.Int(16, false))));
    fields.add(f("s", ArrowType.Utf8.INSTANCE));
    fields.add(f("ls", ArrowType.LargeUtf8.INSTANCE));
    fields.add(notNull("snn", ArrowType.Utf8.INSTANCE));
    fields.add(f("bin", ArrowType.Binary.INSTANCE));
    fields.add(f("lbin", ArrowType.LargeBinary.INSTANCE));
    fields.add(f("fsb16", new ArrowType.FixedSizeBinary(16)));
    fields.add(f("fsb3", new ArrowType.FixedSizeBinary(3)));
    fields.add(f("b", ArrowType.Bool.INSTANCE));
    fields.add(notNull("bnn", ArrowType.Bool.INSTANCE));
    fields.add(f("dec", new ArrowType.Decimal(38, 10, 128)));
    fields.add(f("dec0", new ArrowType.Decimal(38, 0, 128)));
    fields.add(f("dec256", new ArrowType.Decimal(76, 5, 256)));
    fields.add(category("cat8", CAT8_ID, 8));
    fields.add(category("cat16", CAT16_ID, 16));
    return new Schema(fields);
  }

  private static Field category(String name, long id, int bits) {
    ArrowType.Int index = new ArrowType.Int(bits, true);
    return new Field(
        name, new FieldType(true, index, new DictionaryEncoding(id, false, index)), List.of());
  }

  /**
   * The categoricals' dictionaries: distinct strings, empty, multi-byte and with NULs among them.
   */
  public static DictionaryProvider.MapDictionaryProvider dictionaries(
      SplittableRandom r, BufferAllocator allocator) {
    DictionaryProvider.MapDictionaryProvider p = new DictionaryProvider.MapDictionaryProvider();
    p.put(dictionary("cat8", CAT8_ID, 8, CAT8_SIZE, r, allocator));
    p.put(dictionary("cat16", CAT16_ID, 16, CAT16_SIZE, r, allocator));
    return p;
  }

  private static Dictionary dictionary(
      String name, long id, int bits, int size, SplittableRandom r, BufferAllocator allocator) {
    VarCharVector d = new VarCharVector(name + "-values", allocator);
    d.allocateNew();
    for (int k = 0; k < size; k++) {
      String s =
          switch (k % 4) {
            case 0 -> k == 0 ? "" : "c" + k;
            case 1 -> multiByte(r, 1 + r.nextInt(6)) + "#" + k;
            case 2 -> "nul\0" + k + "\0";
            default -> "category-" + k;
          };
      d.setSafe(k, s.getBytes(StandardCharsets.UTF_8));
    }
    d.setValueCount(size);
    ArrowType.Int index = new ArrowType.Int(bits, true);
    return new Dictionary(d, new DictionaryEncoding(id, false, index));
  }

  /** Rows that share a regime (an ordinal of the column kind's regimes), a shape and null rates. */
  record Run(int rows, int regime, int shape, double nulls, double itemNulls) {}

  /** A source of {@code rows} rows (at least 4,000, which the forced runs take). */
  public static VectorSchemaRoot generate(int rows, SplittableRandom r, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    for (FieldVector v : root.getFieldVectors()) {
      fill(v, rows, r.split());
    }
    root.setRowCount(rows);
    return root;
  }

  private static final double[] NULLS = {0, 0, 0.01, 0.1, 0.5, 1};

  /** Fills the {@code rows} rows of top-level vector {@code v}: forced runs, then random ones. */
  private static void fill(FieldVector v, int rows, SplittableRandom r) {
    Filler filler = filler(v, r);
    List<Run> runs = new ArrayList<>(filler.forced());
    int total = runs.stream().mapToInt(Run::rows).sum();
    while (total < rows) {
      int regime = r.nextInt(filler.regimes());
      int shape = r.nextInt(LIST_SHAPES);
      // Values of 100 KB and lists of thousands stay rare: the forced runs have some already.
      boolean big = filler.big(regime, shape);
      int n = Math.min(rows - total, big ? 1 : 1 + r.nextInt(300));
      if (big && r.nextInt(10) != 0) {
        continue;
      }
      runs.add(
          new Run(
              n,
              regime,
              shape,
              NULLS[r.nextInt(NULLS.length)],
              NULLS[r.nextInt(NULLS.length - 1)] / 4));
      total += n;
    }
    Collections.shuffle(runs, new Random(r.nextLong()));
    int row = 0;
    for (Run run : runs) {
      filler.start(run);
      for (int k = 0; k < run.rows() && row < rows; k++, row++) {
        if (v.getField().isNullable() && r.nextDouble() < run.nulls()) {
          setNull(v, row);
        } else {
          filler.put(row);
        }
      }
    }
    v.setValueCount(rows);
  }

  /** Writes the values of one column's runs. */
  private interface Filler {
    /** The runs the coverage checks need. */
    List<Run> forced();

    /** How many regimes the column's kind has. */
    int regimes();

    /** Whether rows of this regime and shape are big (values of 100 KB, lists of thousands). */
    default boolean big(int regime, int shape) {
      return false;
    }

    void start(Run run);

    void put(int row);
  }

  private static Filler filler(FieldVector v, SplittableRandom r) {
    Field field = v.getField();
    ArrowType t = field.getType();
    if (field.getDictionary() != null) {
      int size = ((ArrowType.Int) t).getBitWidth() == 8 ? CAT8_SIZE : CAT16_SIZE;
      return new IntFiller(v, r, size);
    }
    if (t instanceof ArrowType.List || t instanceof ArrowType.LargeList) {
      return new ListFiller(v, r);
    }
    if (t instanceof ArrowType.Bool) {
      return new BoolFiller((BitVector) v, r);
    }
    if (t instanceof ArrowType.Decimal) {
      return new DecimalFiller((BaseFixedWidthVector) v, r);
    }
    if (t instanceof ArrowType.FixedSizeBinary
        || t instanceof ArrowType.Utf8
        || t instanceof ArrowType.LargeUtf8
        || t instanceof ArrowType.Binary
        || t instanceof ArrowType.LargeBinary) {
      return new BytesFiller(v, r);
    }
    return new IntFiller(v, r, 0);
  }

  /** Integers, temporal values and dictionary codes (in {@code [0, codes)} if codes > 0). */
  private static final class IntFiller implements Filler {
    final BaseFixedWidthVector v;
    final SplittableRandom r;
    final int width;
    final AdversarialInts ints;
    final int codes;

    IntFiller(FieldVector v, SplittableRandom r, int codes) {
      this.v = (BaseFixedWidthVector) v;
      this.r = r;
      this.width = this.v.getTypeWidth();
      boolean signed = TypeSupport.integerSignedness(v.getField().getType()) == 1;
      this.ints = new AdversarialInts(r, width * 8, signed);
      this.codes = codes;
    }

    @Override
    public List<Run> forced() {
      return List.of(
          // Twice a FLAT sector of 32-bit values (1,019 rows): a greedy sector that starts in the
          // first half ends in the run, FOR.
          new Run(2200, Regime.FRAME.ordinal(), 0, 0.05, 0),
          new Run(300, Regime.RANDOM_BITS.ordinal(), 0, 0.01, 0),
          new Run(900, Regime.PALETTE.ordinal(), 0, 0, 0),
          new Run(400, Regime.EQUAL.ordinal(), 0, 0.01, 0),
          new Run(400, Regime.MONOTONE.ordinal(), 0, 0, 0),
          new Run(300, Regime.EDGES.ordinal(), 0, 0.1, 0),
          new Run(60, Regime.SMALL.ordinal(), 0, 1, 0));
    }

    @Override
    public int regimes() {
      return Regime.values().length;
    }

    @Override
    public void start(Run run) {
      ints.start(Regime.values()[run.regime()]);
    }

    @Override
    public void put(int row) {
      long x = ints.next();
      if (codes > 0) {
        x =
            ints.regime() == Regime.EDGES
                ? (row % 2 == 0 ? 0 : codes - 1)
                : Math.floorMod(x, codes);
      }
      setFixed(v, row, x);
    }
  }

  private static final int LIST_SHAPES = 5;

  /** Lists of integers. */
  private static final class ListFiller implements Filler {
    final FieldVector v;
    final SplittableRandom r;
    final BaseFixedWidthVector items;
    final int bits;
    final boolean signed;
    final boolean nullableItems;
    final long[] edges;
    Run run;

    ListFiller(FieldVector v, SplittableRandom r) {
      this.v = v;
      this.r = r;
      this.items =
          (BaseFixedWidthVector)
              (v instanceof ListVector l
                  ? l.getDataVector()
                  : ((LargeListVector) v).getDataVector());
      ArrowType.Int t = (ArrowType.Int) items.getField().getType();
      this.bits = t.getBitWidth();
      this.signed = t.getIsSigned();
      this.nullableItems = items.getField().isNullable();
      this.edges = AdversarialInts.edges(bits, signed);
    }

    @Override
    public List<Run> forced() {
      // Regimes: 0 sorted ids, 1 unsorted, 2 duplicates, 3 one value, 4 a constant step,
      // 5 extremes, 6 edges. Shapes: 0 empty, 1 one item, 2 a few, 3 up to 120, 4 thousands.
      return List.of(
          new Run(800, 0, 2, 0.05, 0),
          new Run(300, 2, 2, 0.02, 0.05),
          new Run(12, 0, 4, 0, 0),
          new Run(4, 5, 4, 0, 0),
          new Run(4, 3, 4, 0, 0),
          new Run(4, 4, 4, 0, 0),
          new Run(100, 6, 0, 0.1, 0),
          new Run(200, 1, 1, 0.1, 0),
          new Run(300, 5, 3, 0, 0));
    }

    @Override
    public int regimes() {
      return 7;
    }

    @Override
    public boolean big(int regime, int shape) {
      return shape == 4;
    }

    @Override
    public void start(Run run) {
      this.run = run;
    }

    @Override
    public void put(int row) {
      int n =
          switch (run.shape()) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> r.nextInt(2, 9);
            case 3 -> r.nextInt(9, 121);
            default -> r.nextInt(1000, 5001);
          };
      long first =
          v instanceof ListVector l
              ? l.startNewValue(row)
              : ((LargeListVector) v).startNewValue(row);
      long x = AdversarialInts.fit(r.nextLong() >> r.nextInt(64), bits, signed);
      long step = AdversarialInts.fit(r.nextLong() >> r.nextInt(1, 64), bits, signed);
      int far = r.nextInt(1, 64);
      for (int k = 0; k < n; k++) {
        long value =
            switch (run.regime()) {
              case 0 -> x += 1 + r.nextInt(24);
              case 1 -> x + r.nextInt(1000);
              case 2 -> x += r.nextInt(3);
              case 3 -> x;
              case 4 -> x += step;
              case 5 -> r.nextBoolean() ? r.nextLong() : k % 2 == 0 ? 0 : 1L << far;
              default -> edges[r.nextInt(edges.length)];
            };
        int at = Math.toIntExact(first + k);
        if (nullableItems && r.nextDouble() < run.itemNulls()) {
          setNull(items, at);
        } else {
          setFixed(items, at, AdversarialInts.fit(value, bits, signed));
        }
      }
      if (v instanceof ListVector l) {
        l.endValue(row, n);
      } else {
        ((LargeListVector) v).endValue(row, n);
      }
    }
  }

  /** Booleans: 0 runs of one value, 1 alternating, 2 random. */
  private static final class BoolFiller implements Filler {
    final BitVector v;
    final SplittableRandom r;
    Run run;
    boolean value;

    BoolFiller(BitVector v, SplittableRandom r) {
      this.v = v;
      this.r = r;
    }

    @Override
    public List<Run> forced() {
      return List.of(
          new Run(2000, 0, 0, 0, 0), new Run(500, 1, 0, 0.01, 0), new Run(1500, 2, 0, 0.1, 0));
    }

    @Override
    public int regimes() {
      return 3;
    }

    @Override
    public void start(Run run) {
      this.run = run;
      value = r.nextBoolean();
    }

    @Override
    public void put(int row) {
      if (run.regime() != 0) {
        value = run.regime() == 1 ? !value : r.nextBoolean();
      }
      v.setSafe(row, value ? 1 : 0);
    }
  }

  /**
   * Decimals, unscaled: 0 edges (±(10^p − 1), 0, ±1, ±2^63 ± 1, ±2^64 ± 1), 1 random of up to p
   * digits, 2 narrow around a large base, 3 a few repeated, 4 small.
   */
  private static final class DecimalFiller implements Filler {
    final BaseFixedWidthVector v;
    final SplittableRandom r;
    final BigInteger max;
    final List<BigInteger> edges = new ArrayList<>();
    Run run;
    BigInteger base = BigInteger.ZERO;
    BigInteger[] palette = {};

    DecimalFiller(BaseFixedWidthVector v, SplittableRandom r) {
      this.v = v;
      this.r = r;
      int precision = ((ArrowType.Decimal) v.getField().getType()).getPrecision();
      max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
      for (BigInteger e :
          List.of(
              max,
              BigInteger.ZERO,
              BigInteger.ONE,
              BigInteger.TWO.pow(63),
              BigInteger.TWO.pow(64),
              BigInteger.TWO.pow(100))) {
        for (int d = -1; d <= 1; d++) {
          BigInteger x = e.add(BigInteger.valueOf(d));
          if (x.abs().compareTo(max) <= 0) {
            edges.add(x);
            edges.add(x.negate());
          }
        }
      }
    }

    @Override
    public List<Run> forced() {
      return List.of(new Run(500, 0, 0, 0.1, 0), new Run(1500, 1, 0, 0.01, 0));
    }

    @Override
    public int regimes() {
      return 5;
    }

    @Override
    public void start(Run run) {
      this.run = run;
      base = random();
      palette = new BigInteger[1 + r.nextInt(5)];
      for (int i = 0; i < palette.length; i++) {
        palette[i] = r.nextBoolean() ? random() : edges.get(r.nextInt(edges.size()));
      }
    }

    private BigInteger random() {
      BigInteger x =
          new BigInteger(max.bitLength(), new Random(r.nextLong())).mod(max.add(BigInteger.ONE));
      return r.nextBoolean() ? x.negate() : x;
    }

    @Override
    public void put(int row) {
      BigInteger x =
          switch (run.regime()) {
            case 0 -> edges.get(r.nextInt(edges.size()));
            case 1 -> random();
            case 2 ->
                base.signum() >= 0
                    ? base.subtract(BigInteger.valueOf(r.nextInt(1000)))
                    : base.add(BigInteger.valueOf(r.nextInt(1000)));
            case 3 -> palette[r.nextInt(palette.length)];
            default -> BigInteger.valueOf(r.nextInt(-1000, 1000));
          };
      byte[] be = x.toByteArray();
      byte[] le = new byte[v.getTypeWidth()];
      for (int i = 0; i < le.length; i++) {
        le[i] = i < be.length ? be[be.length - 1 - i] : (byte) (x.signum() < 0 ? -1 : 0);
      }
      setBytes(v, row, le);
    }
  }

  /**
   * Strings, binaries and fixed-size binaries: 0 empty, 1 short ASCII, 2 multi-byte UTF-8 (random
   * bytes for binaries), 3 with NUL bytes, 4 a few repeated, 5 all distinct, 6 100 KB of repetitive
   * text (zstd records), 7 100 KB of random code points or bytes.
   */
  private static final class BytesFiller implements Filler {
    final FieldVector v;
    final SplittableRandom r;
    final boolean utf8;
    final int fixed;
    Run run;
    byte[][] palette = {};

    BytesFiller(FieldVector v, SplittableRandom r) {
      this.v = v;
      this.r = r;
      ArrowType t = v.getField().getType();
      this.utf8 = t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8;
      this.fixed = t instanceof ArrowType.FixedSizeBinary b ? b.getByteWidth() : 0;
    }

    @Override
    public List<Run> forced() {
      return List.of(
          new Run(1500, 4, 0, 0.01, 0),
          new Run(500, 5, 0, 0.1, 0),
          // Apart, so that each shares a page with smaller rows (a page of one record is
          // ZIP_FIXED).
          new Run(1, 6, 0, 0, 0),
          new Run(1, 6, 0, 0, 0),
          new Run(1, 6, 0, 0, 0),
          new Run(2, 7, 0, 0, 0),
          new Run(300, 2, 0, 0, 0),
          new Run(200, 3, 0, 0, 0),
          new Run(200, 0, 0, 0.5, 0));
    }

    @Override
    public int regimes() {
      return 8;
    }

    @Override
    public boolean big(int regime, int shape) {
      return regime >= 6;
    }

    @Override
    public void start(Run run) {
      this.run = run;
      palette = new byte[1 + r.nextInt(8)][];
      for (int i = 0; i < palette.length; i++) {
        palette[i] = value(1 + r.nextInt(3), 0);
      }
    }

    @Override
    public void put(int row) {
      int regime = run.regime();
      byte[] b =
          regime == 4
              ? palette[r.nextInt(palette.length)]
              : regime == 5
                  ? ("distinct-" + row + "-" + r.nextLong()).getBytes(StandardCharsets.UTF_8)
                  : value(regime, row);
      if (fixed > 0) {
        byte[] f = new byte[fixed];
        System.arraycopy(b, 0, f, 0, Math.min(fixed, b.length));
        if (regime == 7 || regime == 2) {
          for (int i = 0; i < fixed; i++) {
            f[i] = (byte) r.nextInt();
          }
        }
        b = f;
        setBytes((BaseFixedWidthVector) v, row, b);
      } else {
        ((VariableWidthFieldVector) v).setSafe(row, b);
      }
    }

    private byte[] value(int regime, int row) {
      switch (regime) {
        case 0:
          return new byte[0];
        case 1:
          return RandomData.ascii(r, r.nextInt(1, 40));
        case 2:
          if (utf8) {
            return multiByte(r, r.nextInt(1, 40)).getBytes(StandardCharsets.UTF_8);
          }
          byte[] b = new byte[r.nextInt(1, 60)];
          r.nextBytes(b);
          return b;
        case 3:
          byte[] n = RandomData.ascii(r, r.nextInt(1, 30));
          for (int i = 0; i < n.length; i += 1 + r.nextInt(4)) {
            n[i] = 0;
          }
          return n;
        case 6:
          StringBuilder s = new StringBuilder();
          while (s.length() < 100_000) {
            s.append("ligne ").append(r.nextInt(1000)).append(" — données ").append('\n');
          }
          return s.toString().getBytes(StandardCharsets.UTF_8);
        case 7:
          if (utf8) {
            return multiByte(r, 40_000).getBytes(StandardCharsets.UTF_8);
          }
          byte[] big = new byte[100_000];
          r.nextBytes(big);
          return big;
        default:
          return ("v" + row).getBytes(StandardCharsets.UTF_8);
      }
    }
  }

  /** {@code n} random code points of 1 to 4 UTF-8 bytes, no surrogates. */
  static String multiByte(SplittableRandom r, int n) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      int cp;
      switch (r.nextInt(4)) {
        case 0:
          cp = r.nextInt(1, 0x80);
          break;
        case 1:
          cp = r.nextInt(0x80, 0x800);
          break;
        case 2:
          cp = r.nextInt(0x800, 0x10000);
          if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;
          }
          break;
        default:
          cp = r.nextInt(0x10000, 0x110000);
      }
      s.appendCodePoint(cp);
    }
    return s.toString();
  }

  private static void ensure(BaseFixedWidthVector v, int i) {
    while (v.getValueCapacity() <= i) {
      v.reAlloc();
    }
  }

  /** Sets fixed-width slot {@code i} to the low bytes of {@code x}, little-endian. */
  static void setFixed(BaseFixedWidthVector v, int i, long x) {
    ensure(v, i);
    long at = (long) i * v.getTypeWidth();
    switch (v.getTypeWidth()) {
      case 1 -> v.getDataBuffer().setByte(at, (byte) x);
      case 2 -> v.getDataBuffer().setShort(at, (short) x);
      case 4 -> v.getDataBuffer().setInt(at, (int) x);
      default -> v.getDataBuffer().setLong(at, x);
    }
    BitVectorHelper.setBit(v.getValidityBuffer(), i);
  }

  static void setBytes(BaseFixedWidthVector v, int i, byte[] b) {
    ensure(v, i);
    v.getDataBuffer().setBytes((long) i * v.getTypeWidth(), b);
    BitVectorHelper.setBit(v.getValidityBuffer(), i);
  }

  private static void setNull(FieldVector v, int i) {
    if (v instanceof BaseFixedWidthVector f) {
      ensure(f, i);
      f.setNull(i);
    } else if (v instanceof BaseVariableWidthVector b) {
      b.setNull(i);
    } else if (v instanceof BaseLargeVariableWidthVector b) {
      b.setNull(i);
    } else if (v instanceof ListVector l) {
      l.setNull(i);
    } else {
      ((LargeListVector) v).setNull(i);
    }
  }
}
