package dev.riffle.djl;

import ai.djl.Model;
import ai.djl.training.Trainer;
import ai.djl.training.listener.TrainingListenerAdapter;
import dev.riffle.loader.plan.LoaderState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Saves the model's parameters and the loader's state together, every {@code everyBatches} batches
 * and at the end of each epoch, so that a run can resume mid-epoch with the batches the
 * uninterrupted run would have had.
 *
 * <p>Which state goes with which parameters: DJL tells listeners of a batch ({@code
 * onTrainingBatch}) after its gradients are computed and before the optimizer step, so the
 * parameters then are those of the batches before it; the state saved is therefore {@link
 * RiffleDataset#stateBeforeLastBatch()}, and a resumed run trains that batch as the uninterrupted
 * one did. At an epoch's end ({@code onEpoch}) all its steps are done and the state is {@link
 * RiffleDataset#state()}. Both are those of the batches handed to the trainer, not of the loader,
 * which runs ahead by the batches converted in the background.
 *
 * <p>A checkpoint is a directory {@code checkpoint-NNNNNNNNNN} (the number of optimizer steps taken
 * before it) holding {@code MODEL-0000.params} and {@code loader-state.json}, written under a
 * temporary name and renamed when complete; {@code latest} names the newest, replaced atomically.
 * DJL saves parameters only: an optimizer with state (momentum, Adam) restarts it on resume, so
 * only plain SGD resumes to exactly the same parameters.
 */
public final class CheckpointListener extends TrainingListenerAdapter {
  static final String STATE_FILE = "loader-state.json";
  static final String LATEST = "latest";

  private final RiffleDataset data;
  private final Path dir;
  private final String modelName;
  private final long everyBatches;
  private long steps;
  private long sinceSave;

  /**
   * @param data the training set whose loader state is saved
   * @param dir where checkpoints go (created if missing)
   * @param modelName the parameters' file name prefix, as {@code Model.load} wants it
   * @param everyBatches save after this many batches as well as at each epoch's end; 0 for epochs
   *     only
   * @param stepsBefore optimizer steps taken before this listener started (a resumed run's)
   */
  public CheckpointListener(
      RiffleDataset data, Path dir, String modelName, long everyBatches, long stepsBefore) {
    if (everyBatches < 0) {
      throw new IllegalArgumentException("everyBatches must not be negative");
    }
    this.data = data;
    this.dir = dir;
    this.modelName = modelName;
    this.everyBatches = everyBatches;
    this.steps = stepsBefore;
  }

  @Override
  public void onTrainingBatch(Trainer trainer, BatchData batchData) {
    // The step of this batch is not taken yet: the parameters are those of `steps` steps.
    if (everyBatches > 0 && ++sinceSave >= everyBatches) {
      save(trainer.getModel(), data.stateBeforeLastBatch(), steps);
      sinceSave = 0;
    }
    steps++;
  }

  @Override
  public void onEpoch(Trainer trainer) {
    save(trainer.getModel(), data.state(), steps);
    sinceSave = 0;
  }

  /** A saved checkpoint: the directory to {@code Model.load} from, and where the data stands. */
  public record Checkpoint(Path dir, LoaderState state, long steps) {}

  private void save(Model model, LoaderState state, long stepsTaken) {
    String name = String.format(java.util.Locale.ROOT, "checkpoint-%010d", stepsTaken);
    Path tmp = dir.resolve(".tmp-" + name);
    try {
      Files.createDirectories(dir);
      deleteTree(tmp);
      Files.createDirectories(tmp);
      model.save(tmp, modelName);
      Files.writeString(tmp.resolve(STATE_FILE), state.toJson() + "\n", StandardCharsets.UTF_8);
      Path target = dir.resolve(name);
      deleteTree(target);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      Path latestTmp = dir.resolve(".tmp-" + LATEST);
      Files.writeString(latestTmp, name + "\n", StandardCharsets.UTF_8);
      Files.move(
          latestTmp,
          dir.resolve(LATEST),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write checkpoint " + dir.resolve(name), e);
    }
  }

  /**
   * The newest complete checkpoint in {@code dir}.
   *
   * @throws NoSuchFileException if there is none
   * @throws IOException if it cannot be read, naming the file
   */
  public static Checkpoint latest(Path dir) throws IOException {
    Path pointer = dir.resolve(LATEST);
    if (!Files.isRegularFile(pointer)) {
      throw new NoSuchFileException(pointer.toString(), null, "no checkpoint to resume from");
    }
    String name = Files.readString(pointer, StandardCharsets.UTF_8).trim();
    Path cp = dir.resolve(name);
    Path stateFile = cp.resolve(STATE_FILE);
    if (!name.startsWith("checkpoint-") || !Files.isRegularFile(stateFile)) {
      throw new IOException(pointer + " names '" + name + "', which is not a complete checkpoint");
    }
    LoaderState state;
    try {
      state = LoaderState.fromJson(Files.readString(stateFile, StandardCharsets.UTF_8).trim());
    } catch (IllegalArgumentException e) {
      throw new IOException(stateFile + ": " + e.getMessage(), e);
    }
    long steps;
    try {
      steps = Long.parseLong(name.substring("checkpoint-".length()));
    } catch (NumberFormatException e) {
      throw new IOException(pointer + " names '" + name + "', which is not a checkpoint", e);
    }
    return new Checkpoint(cp, state, steps);
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path q : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
