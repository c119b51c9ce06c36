package dev.riffle.djl;

import ai.djl.engine.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Starts DJL's PyTorch engine from the jars on the class path only, never from the network.
 *
 * <p>How DJL's PyTorch engine finds libtorch (its {@code LibUtils}, 0.36.0): {@code
 * PYTORCH_LIBRARY_PATH} if set; otherwise the {@code native/lib/pytorch.properties} of a {@code
 * pytorch-native-*} jar on the class path, whose libraries it copies once into its cache directory
 * ({@code ~/.djl.ai/pytorch}, or {@code DJL_CACHE_DIR} / {@code ENGINE_CACHE_DIR}); it downloads
 * only when no such jar is there (a "placeholder" platform), or when {@code PYTORCH_VERSION} names
 * another version than the jar's. The JNI glue comes from the {@code pytorch-jni} jar's {@code
 * jnilib/} if its {@code jni_version} matches, else it is downloaded too. So: both jars on the
 * class path (this module's pom), {@code PYTORCH_VERSION} pinned to the jar's version, and {@code
 * ai.djl.offline=true}, which makes every DJL download fail instead of going out ({@code
 * Utils.openUrl}). On top, {@link #start()} checks the two properties files itself, so that a
 * missing or mismatched jar is one clear error, not a failed download deep in the engine.
 */
public final class OfflineEngine {
  /** The libtorch version this module's native jar holds. */
  public static final String PYTORCH_VERSION = "2.7.1";

  /** The DJL version the JNI glue must be built for. */
  public static final String DJL_VERSION = "0.36.0";

  private OfflineEngine() {}

  /**
   * Sets DJL's offline properties (unless the caller set them) and starts the PyTorch engine.
   *
   * @throws IllegalStateException if the native or JNI jar is missing or of another version
   */
  public static synchronized Engine start() {
    setIfAbsent("ai.djl.offline", "true");
    setIfAbsent("PYTORCH_VERSION", PYTORCH_VERSION);
    setIfAbsent("ai.djl.default_engine", "PyTorch");
    if (System.getProperty("PYTORCH_LIBRARY_PATH") == null
        && System.getenv("PYTORCH_LIBRARY_PATH") == null) {
      String nativeVersion = property("native/lib/pytorch.properties", "version");
      if (nativeVersion == null) {
        throw new IllegalStateException(
            "no pytorch-native jar on the class path (native/lib/pytorch.properties): add"
                + " ai.djl.pytorch:pytorch-native-cpu:"
                + PYTORCH_VERSION
                + " (classifier linux-x86_64) or a GPU build; DJL would otherwise download"
                + " libtorch");
      }
      if (!nativeVersion.startsWith(PYTORCH_VERSION)) {
        throw new IllegalStateException(
            "the pytorch-native jar on the class path is libtorch "
                + nativeVersion
                + ", not "
                + PYTORCH_VERSION
                + ": DJL would download the matching one");
      }
    }
    String jni = property("jnilib/pytorch.properties", "jni_version");
    if (jni == null || !jni.startsWith(PYTORCH_VERSION + "-" + DJL_VERSION)) {
      throw new IllegalStateException(
          "the pytorch-jni jar on the class path is "
              + (jni == null ? "missing" : jni)
              + "; add ai.djl.pytorch:pytorch-jni:"
              + PYTORCH_VERSION
              + "-"
              + DJL_VERSION
              + " (DJL would otherwise download it)");
    }
    return Engine.getEngine("PyTorch");
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null && System.getenv(key) == null) {
      System.setProperty(key, value);
    }
  }

  private static String property(String resource, String key) {
    try (InputStream in = OfflineEngine.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty(key);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource + " from the class path", e);
    }
  }
}
