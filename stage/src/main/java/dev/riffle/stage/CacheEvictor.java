package dev.riffle.stage;

import dev.riffle.dataset.Manifest;
import dev.riffle.dataset.ManifestCodec;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keeps a staging cache under a {@link CacheLimit} and above a free-space floor by deleting blobs,
 * least valuable first by the limit's {@link EvictionPolicy}. Blobs pinned by a live {@link
 * CacheLease} (open views, stages in progress) are never evicted. Each pass also deletes the leases
 * and {@link CachePlan}s of dead processes.
 *
 * <p>A view must never be served partial, so evicting a blob first deletes the {@code COMPLETE}
 * marker of every view that links it (synced), then those links, then the blob; staging the version
 * again restores the view. Eviction passes hold one cache-wide lock, which new leases also take, so
 * a reader's check of a view and its lease are atomic with respect to eviction.
 *
 * <p>The limit is kept per stage: each stage makes room for the blobs it is about to download.
 * Stages running at once in several processes may overshoot it by the downloads in flight.
 */
public final class CacheEvictor {
  private final CacheLayout layout;
  private final long blockBytes;

  /** What a pass removed. */
  public record Result(int blobs, long bytes, int viewsInvalidated) {
    public static final Result NONE = new Result(0, 0, 0);
  }

  public CacheEvictor(Path cacheDir) throws IOException {
    this(new CacheLayout(cacheDir));
  }

  CacheEvictor(CacheLayout layout) throws IOException {
    this.layout = layout;
    long block = 4096;
    try {
      long b = Files.getFileStore(layout.blobsDir()).getBlockSize();
      if (b > 0 && b <= (1 << 20)) {
        block = b;
      }
    } catch (IOException | UnsupportedOperationException e) {
      // Round to 4 KiB: the common block size.
    }
    this.blockBytes = block;
  }

  /** Bytes a file of {@code length} takes on the cache disk (whole blocks). */
  public long allocated(long length) {
    return (length + blockBytes - 1) / blockBytes * blockBytes;
  }

  /** The bytes the blobs take now, in whole blocks (views are hard links and cost nothing). */
  public long usedBytes() throws IOException {
    long used = 0;
    for (BlobInfo b : blobs()) {
      used += b.bytes;
    }
    return used;
  }

  /**
   * Fails fast when a snapshot cannot live under the limit: the limit is smaller than {@link
   * CacheLimit#MIN_LARGEST_BLOBS} times its largest file, or than all its files together.
   *
   * @param files the snapshot's distinct files
   * @param what the snapshot, for the message
   */
  public void checkFits(CacheLimit limit, Collection<Manifest.DataFile> files, String what) {
    long largest = 0;
    long total = 0;
    for (Manifest.DataFile f : files) {
      largest = Math.max(largest, f.byteLength());
      total += allocated(f.byteLength());
    }
    long min = CacheLimit.MIN_LARGEST_BLOBS * largest;
    if (limit.maxBytes() < min) {
      throw new IllegalArgumentException(
          "cache limit of "
              + limit.maxBytes()
              + " bytes is less than "
              + CacheLimit.MIN_LARGEST_BLOBS
              + " x the largest file of "
              + what
              + " ("
              + largest
              + " bytes); the cache would thrash. Use a limit of at least "
              + min
              + " bytes");
    }
    if (limit.maxBytes() < total) {
      throw new IllegalArgumentException(
          what
              + " needs "
              + total
              + " bytes in the cache, more than its limit of "
              + limit.maxBytes()
              + " bytes; raise the limit or read it lazily");
    }
  }

  /**
   * Evicts until {@code incomingBytes} more fit: the blobs stay within {@code limit} and the cache
   * disk keeps {@code freeFloorBytes} free after the download. Nothing is evicted if they already
   * fit.
   *
   * @param keep blobs not to evict besides the pinned ones (those of the snapshot being staged)
   * @throws IOException if pinned and kept blobs leave too little to evict (nothing is evicted
   *     then)
   */
  // the resource is held for the block; the body never names it
  @SuppressWarnings("try")
  public Result makeRoom(
      long incomingBytes, CacheLimit limit, long freeFloorBytes, Set<String> keep)
      throws IOException {
    try (CacheLocks.Held lock = CacheLocks.lock(layout.evictLock())) {
      List<BlobInfo> all = blobs();
      long used = all.stream().mapToLong(b -> b.bytes).sum();
      long need = used + incomingBytes - limit.maxBytes();
      if (freeFloorBytes > 0) {
        long usable = Files.getFileStore(layout.blobsDir()).getUsableSpace();
        need = Math.max(need, freeFloorBytes + incomingBytes - usable);
      }
      if (need <= 0) {
        return Result.NONE;
      }
      Set<String> pinned = CacheLease.pinned(layout);
      // Plans of dead processes go with their leases, whatever the policy.
      OwnedFiles.live(layout.plansDir(), "*");
      List<BlobInfo> candidates = new ArrayList<>();
      long pinnedBytes = 0;
      for (BlobInfo b : all) {
        if (pinned.contains(b.sha) || keep.contains(b.sha)) {
          pinnedBytes += b.bytes;
        } else {
          candidates.add(b);
        }
      }
      long evictable = candidates.stream().mapToLong(b -> b.bytes).sum();
      if (evictable < need) {
        throw new IOException(
            "cache "
                + layout.root()
                + " cannot make room for "
                + incomingBytes
                + " bytes: "
                + need
                + " must be freed (limit "
                + limit.maxBytes()
                + ", used "
                + used
                + ", free-space floor "
                + freeFloorBytes
                + ") but only "
                + evictable
                + " are evictable; "
                + pinnedBytes
                + " bytes are in use by open views or running stages; nothing was evicted");
      }
      candidates.sort(order(limit));
      Map<String, List<Path>> links = linksByBlob();
      int blobs = 0;
      long bytes = 0;
      int views = 0;
      for (BlobInfo b : candidates) {
        if (bytes >= need) {
          break;
        }
        views += evict(b, links.getOrDefault(b.sha, List.of()));
        blobs++;
        bytes += b.bytes;
      }
      CacheLayout.syncDirectory(layout.blobsDir());
      return new Result(blobs, bytes, views);
    }
  }

  private static Comparator<BlobInfo> order(CacheLimit limit) throws IOException {
    Comparator<BlobInfo> lru = Comparator.comparingLong(b -> b.lastUseMillis);
    if (limit.policy() == EvictionPolicy.LRU) {
      return lru.thenComparing(b -> b.sha);
    }
    NextUse next = limit.nextUse().snapshot();
    Map<String, Long> memo = new HashMap<>();
    Comparator<BlobInfo> furthest =
        Comparator.comparingLong((BlobInfo b) -> memo.computeIfAbsent(b.sha, next::of)).reversed();
    return furthest.thenComparing(lru).thenComparing(b -> b.sha);
  }

  /** Invalidates the views linking the blob, deletes the links, then the blob. */
  private int evict(BlobInfo b, List<Path> viewLinks) throws IOException {
    int views = 0;
    for (Path link : viewLinks) {
      Path view = viewOf(link);
      if (Files.deleteIfExists(view.resolve(CacheLayout.COMPLETE))) {
        CacheLayout.syncDirectory(view);
        views++;
      }
    }
    for (Path link : viewLinks) {
      Files.deleteIfExists(link);
    }
    Files.deleteIfExists(layout.blob(b.sha));
    return views;
  }

  private Path viewOf(Path link) {
    // links are snapshots/<id>/<version>/<data file path>: the view is three levels under root.
    Path rel = layout.snapshotsDir().relativize(link);
    return layout.snapshotsDir().resolve(rel.getName(0)).resolve(rel.getName(1));
  }

  /** Every view's data files (complete or not), by the blob they link. */
  private Map<String, List<Path>> linksByBlob() throws IOException {
    Map<String, List<Path>> links = new HashMap<>();
    for (Path id : list(layout.snapshotsDir())) {
      for (Path view : list(id)) {
        long version;
        try {
          version = Long.parseLong(view.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        Manifest m = viewManifest(view, version);
        if (m == null) {
          // A view whose build never got to the manifest: its stage pins its blobs, or it died
          // and the next stage of that version relinks every file.
          continue;
        }
        for (Manifest.DataFile f : m.files()) {
          links.computeIfAbsent(f.sha256(), k -> new ArrayList<>()).add(view.resolve(f.path()));
        }
      }
    }
    return links;
  }

  /** The manifest a view holds, or null if it has none (yet) or it does not parse. */
  static Manifest viewManifest(Path view, long version) throws IOException {
    Path p = view.resolve(Manifest.path(version));
    try {
      return ManifestCodec.read(Files.readAllBytes(p), p.toString(), version);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private List<BlobInfo> blobs() throws IOException {
    List<BlobInfo> out = new ArrayList<>();
    for (Path p : list(layout.blobsDir())) {
      if (!p.getFileName().toString().matches("[0-9a-f]{64}")) {
        continue;
      }
      try {
        out.add(
            new BlobInfo(
                p.getFileName().toString(),
                allocated(Files.size(p)),
                Files.getLastModifiedTime(p).toMillis()));
      } catch (NoSuchFileException e) {
        // Evicted meanwhile by a process without a limit check (none today) or a person.
      }
    }
    return out;
  }

  private static List<Path> list(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      ds.forEach(out::add);
    }
    return out;
  }

  /**
   * Marks a blob used now, for LRU (its mtime; blobs are never modified, so mtime is free to mean
   * "last used"). Best effort: a cache shared by several users may not allow it.
   */
  static void touch(Path blob) {
    try {
      Files.setLastModifiedTime(blob, FileTime.fromMillis(System.currentTimeMillis()));
    } catch (IOException e) {
      // Not the owner, or gone: LRU order just gets coarser.
    }
  }

  private record BlobInfo(String sha, long bytes, long lastUseMillis) {}
}
