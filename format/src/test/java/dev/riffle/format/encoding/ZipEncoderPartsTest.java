package dev.riffle.format.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.riffle.format.ByteSink;
import dev.riffle.format.testing.Seed;
import dev.riffle.format.testing.SeedExtension;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A page's records may be encoded by several threads, each a contiguous part: the page must be the
 * same bytes, with the same record offsets and the same zstd trial state after it, whatever the
 * number of parts.
 */
@ExtendWith(SeedExtension.class)
class ZipEncoderPartsTest {

  private static Field list(String name, ArrowType item) {
    return new Field(
        name,
        FieldType.notNullable(ArrowType.List.INSTANCE),
        List.of(new Field("item", FieldType.notNullable(item), null)));
  }

  /**
   * Plain float32 list records (varint count, then the items): mostly small counts, which pack,
   * some with a fraction (plain or zstd), some repetitive (zstd wins), and null rows.
   */
  private static PageRows page(SplittableRandom r, int rows, boolean mixed) {
    PageRows page = new PageRows();
    for (int i = 0; i < rows; i++) {
      if (r.nextInt(10) == 0) {
        page.addNull();
        continue;
      }
      int n = 600 + r.nextInt(1200);
      int kind = mixed ? r.nextInt(8) : 2;
      ByteSink out = page.beginValid();
      out.putVarint(n);
      for (int j = 0; j < n; j++) {
        float v =
            switch (kind) {
              case 0 -> r.nextInt(1000) + 0.5f;
              case 1 -> 7.25f;
              default -> 1 + r.nextInt(r.nextInt(10) < 8 ? 3 : 200);
            };
        out.putInt(Float.floatToRawIntBits(v));
      }
      page.endValid();
    }
    return page;
  }

  @Test
  void partsGiveTheSameBytes(@Seed long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    RecordPacker packer =
        RecordPacker.of(
            Codecs.forField(list("x", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));
    ZipEncoder.ZstdTrials one = new ZipEncoder.ZstdTrials();
    ZipEncoder.ZstdTrials many = new ZipEncoder.ZstdTrials();
    boolean sampled = false;
    for (int p = 0; p < 6; p++) {
      PageRows page = page(r, 40 + r.nextInt(120), p % 3 == 0);
      ByteSink a = new ByteSink();
      ByteSink b = new ByteSink();
      a.put((byte) 1); // pages start anywhere in the writer's buffer
      LongList offsetsA = ZipEncoder.encodeVar(page, 3, 0, packer, one, a, 1);
      LongList offsetsB = ZipEncoder.encodeVar(page, 3, 0, packer, many, b, 2 + p % 3);
      byte[] bytesA = java.util.Arrays.copyOfRange(a.toByteArray(), 1, a.length());
      assertThat(b.toByteArray()).as("page %d", p).isEqualTo(bytesA);
      assertThat(java.util.Arrays.copyOf(offsetsB.array(), offsetsB.size()))
          .isEqualTo(java.util.Arrays.copyOf(offsetsA.array(), offsetsA.size()));
      assertThat(many.records()).isEqualTo(one.records());
      assertThat(many.sampling()).isEqualTo(one.sampling());
      sampled |= one.sampling();
    }
    // Pages of counts only: some page was encoded with zstd only sampled.
    assertThat(sampled).isTrue();
  }
}
