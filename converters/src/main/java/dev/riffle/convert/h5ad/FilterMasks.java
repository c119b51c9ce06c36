package dev.riffle.convert.h5ad;

import io.jhdf.AbstractNode;
import io.jhdf.ObjectHeader;
import io.jhdf.api.Dataset;
import io.jhdf.dataset.DatasetReader;
import io.jhdf.dataset.chunked.Chunk;
import io.jhdf.dataset.chunked.ChunkedDatasetV3;
import io.jhdf.dataset.chunked.ChunkedDatasetV4;
import io.jhdf.exceptions.HdfException;
import io.jhdf.filter.FilterManager;
import io.jhdf.filter.FilterPipeline;
import io.jhdf.object.datatype.DataType;
import io.jhdf.object.datatype.OrderedDataType;
import io.jhdf.object.message.FilterPipelineMessage;
import io.jhdf.object.message.FilterPipelineMessage.FilterInfo;
import io.jhdf.storage.HdfBackingStorage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * Reads chunked datasets as HDF5 does when a chunk skipped a filter. HDF5 keeps, per chunk, a mask
 * of the filters that were not applied to it: an optional filter that fails leaves the chunk as it
 * was, and h5py's LZF fails on every chunk it cannot shrink (random floats, a 16-byte string
 * chunk). jhdf 0.13 ignores the mask and runs every filter on every chunk, so such chunks decode as
 * garbage or not at all. A dataset with masked chunks is assembled here from jhdf's chunk index,
 * each chunk read at its stored size and run through the filters its mask leaves on, and checked to
 * decode to exactly a chunk's bytes; every other dataset is read by jhdf unchanged.
 */
final class FilterMasks {
  /** Per dataset: the plan if some chunk has a mask bit set, else empty. Values hold no node. */
  private static final Map<Dataset, Optional<Plan>> PLANS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private FilterMasks() {}

  /**
   * The elements of {@code shape} from {@code offset}, as jhdf's {@link Dataset#getData(long[],
   * int[])} gives them.
   */
  static Object read(Dataset d, long[] offset, int[] shape) {
    Optional<Plan> plan = PLANS.computeIfAbsent(d, FilterMasks::plan);
    if (plan.isEmpty()) {
      return d.getData(offset, shape);
    }
    return plan.get().read(d.getPath(), offset, shape);
  }

  /** The whole dataset, as {@link Dataset#getData()} gives it. */
  static Object readAll(Dataset d) {
    int[] dims = d.getDimensions();
    Optional<Plan> plan =
        dims.length == 0 ? Optional.empty() : PLANS.computeIfAbsent(d, FilterMasks::plan);
    if (plan.isEmpty()) {
      return d.getData();
    }
    return plan.get().read(d.getPath(), new long[dims.length], dims);
  }

  /** jhdf's chunk index of a chunked dataset (layout v3 or v4), or null for other layouts. */
  static Collection<Chunk> chunkIndex(Dataset d) {
    if (d instanceof ChunkedDatasetV3) {
      return new IndexV3(d).chunks();
    } else if (d instanceof ChunkedDatasetV4) {
      return new IndexV4(d).chunks();
    }
    return null;
  }

  private static Optional<Plan> plan(Dataset d) {
    Collection<Chunk> chunks = chunkIndex(d);
    if (chunks == null) {
      return Optional.empty();
    }
    ObjectHeader oh = ((AbstractNode) d).getHeader();
    if (!oh.hasMessageOfType(FilterPipelineMessage.class)) {
      return Optional.empty();
    }
    List<FilterInfo> filters = oh.getMessageOfType(FilterPipelineMessage.class).getFilters();
    boolean masked = false;
    for (Chunk c : chunks) {
      masked |= c.getFilterMask().previousSetBit(filters.size() - 1) >= 0;
    }
    if (!masked) {
      return Optional.empty();
    }
    int[] chunkDims = ((io.jhdf.api.dataset.ChunkedDataset) d).getChunkDimensions();
    return Optional.of(
        new Plan(
            d.getHdfFile().getHdfBackingStorage(),
            d.getDataType(),
            d.getDimensionsAsLong(),
            chunkDims,
            filters,
            chunks));
  }

  /** What reading a masked dataset needs, and nothing that refers back to its node. */
  private static final class Plan {
    private final HdfBackingStorage storage;
    private final DataType type;
    private final long[] dims;
    private final int[] chunkDims;
    private final List<FilterInfo> filters;
    private final Map<List<Long>, Chunk> byGrid = new HashMap<>();
    private final Map<BitSet, FilterPipeline> pipelines = new HashMap<>();

    Plan(
        HdfBackingStorage storage,
        DataType type,
        long[] dims,
        int[] chunkDims,
        List<FilterInfo> filters,
        Collection<Chunk> chunks) {
      this.storage = storage;
      this.type = type;
      this.dims = dims;
      this.chunkDims = chunkDims;
      this.filters = filters;
      for (Chunk c : chunks) {
        byGrid.put(grid(c.getChunkOffset()), c);
      }
    }

    private List<Long> grid(long[] elementOffset) {
      List<Long> g = new ArrayList<>(elementOffset.length);
      for (int i = 0; i < elementOffset.length; i++) {
        g.add(elementOffset[i] / chunkDims[i]);
      }
      return g;
    }

    Object read(String path, long[] offset, int[] shape) {
      int rank = dims.length;
      int size = type.getSize();
      long total = size;
      for (int i = 0; i < rank; i++) {
        if (offset[i] < 0 || shape[i] < 0 || offset[i] + shape[i] > dims[i]) {
          throw new HdfException(
              path
                  + ": slice "
                  + Arrays.toString(offset)
                  + " + "
                  + Arrays.toString(shape)
                  + " is outside "
                  + Arrays.toString(dims));
        }
        total *= shape[i];
      }
      byte[] out = new byte[Math.toIntExact(total)];
      if (total > 0) {
        long[] first = new long[rank];
        long[] last = new long[rank];
        for (int i = 0; i < rank; i++) {
          first[i] = offset[i] / chunkDims[i];
          last[i] = (offset[i] + shape[i] - 1) / chunkDims[i];
        }
        long[] at = first.clone();
        while (true) {
          Chunk c = byGrid.get(Arrays.stream(at).boxed().toList());
          // A chunk never written holds the fill value, which anndata leaves at 0.
          if (c != null) {
            copy(path, c, offset, shape, out);
          }
          int i = rank - 1;
          while (i >= 0 && at[i] == last[i]) {
            at[i] = first[i];
            i--;
          }
          if (i < 0) {
            break;
          }
          at[i]++;
        }
      }
      ByteBuffer bb = ByteBuffer.wrap(out);
      bb.order(
          type instanceof OrderedDataType
              ? ((OrderedDataType) type).getByteOrder()
              : ByteOrder.LITTLE_ENDIAN);
      return DatasetReader.readDataset(type, bb, shape, storage);
    }

    /** Decodes chunk {@code c} and copies its part of the slice into {@code out}. */
    private void copy(String path, Chunk c, long[] offset, int[] shape, byte[] out) {
      int rank = dims.length;
      int size = type.getSize();
      byte[] data = decode(path, c);
      long[] co = c.getChunkOffset();
      int[] from = new int[rank]; // in the chunk
      int[] to = new int[rank]; // in the slice
      int[] n = new int[rank];
      for (int i = 0; i < rank; i++) {
        long s = Math.max(offset[i], co[i]);
        long e = Math.min(offset[i] + shape[i], co[i] + chunkDims[i]);
        from[i] = (int) (s - co[i]);
        to[i] = (int) (s - offset[i]);
        n[i] = (int) (e - s);
      }
      // Row by row along the last dimension, which is contiguous in both.
      int[] k = new int[rank];
      int run = n[rank - 1] * size;
      while (true) {
        long src = 0;
        long dst = 0;
        for (int i = 0; i < rank; i++) {
          src = src * chunkDims[i] + from[i] + k[i];
          dst = dst * shape[i] + to[i] + k[i];
        }
        System.arraycopy(data, (int) (src * size), out, (int) (dst * size), run);
        int i = rank - 2;
        while (i >= 0 && k[i] == n[i] - 1) {
          k[i] = 0;
          i--;
        }
        if (i < 0) {
          return;
        }
        k[i]++;
      }
    }

    private byte[] decode(String path, Chunk c) {
      ByteBuffer raw = storage.readBufferFromAddress(c.getAddress(), c.getSize());
      byte[] bytes = new byte[raw.remaining()];
      raw.get(bytes);
      BitSet mask = c.getFilterMask().get(0, filters.size());
      FilterPipeline p =
          pipelines.computeIfAbsent(
              mask,
              m -> {
                List<FilterInfo> on = new ArrayList<>();
                for (int i = 0; i < filters.size(); i++) {
                  if (!m.get(i)) {
                    on.add(filters.get(i));
                  }
                }
                return on.isEmpty() ? null : FilterManager.getPipeline(on);
              });
      byte[] decoded = p == null ? bytes : p.decode(bytes);
      long want = type.getSize();
      for (int d : chunkDims) {
        want *= d;
      }
      if (decoded.length != want) {
        throw new HdfException(
            path
                + ": the chunk at "
                + Arrays.toString(c.getChunkOffset())
                + " decodes to "
                + decoded.length
                + " bytes, not the chunk's "
                + want);
      }
      return decoded;
    }
  }

  /** jhdf's own chunk index of a layout-v3 (B-tree) dataset, built from the same header. */
  private static final class IndexV3 extends ChunkedDatasetV3 {
    IndexV3(Dataset d) {
      super(
          d.getHdfFile().getHdfBackingStorage(),
          d.getAddress(),
          d.getName(),
          d.getParent(),
          ((AbstractNode) d).getHeader());
    }

    Collection<Chunk> chunks() {
      return getChunkLookup().values();
    }
  }

  /** Likewise for layout v4 (files written with libver='latest'). */
  private static final class IndexV4 extends ChunkedDatasetV4 {
    IndexV4(Dataset d) {
      super(
          d.getHdfFile().getHdfBackingStorage(),
          d.getAddress(),
          d.getName(),
          d.getParent(),
          ((AbstractNode) d).getHeader());
    }

    Collection<Chunk> chunks() {
      return getChunkLookup().values();
    }
  }
}
