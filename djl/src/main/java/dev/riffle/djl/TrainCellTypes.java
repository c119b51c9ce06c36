package dev.riffle.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.Batch;
import ai.djl.training.listener.TrainingListener;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.riffle.dataset.Dataset;
import dev.riffle.dataset.DatasetView;
import dev.riffle.dataset.storage.LocalStorage;
import dev.riffle.format.io.RecyclingAllocator;
import dev.riffle.loader.pipeline.Loader;
import dev.riffle.loader.pipeline.LoaderOptions;
import dev.riffle.loader.plan.BlockShuffle;
import dev.riffle.loader.plan.LoaderState;
import dev.riffle.loader.plan.Sampler;
import dev.riffle.loader.plan.Sequential;
import dev.riffle.loader.plan.Tail;
import dev.riffle.loader.plan.TrueRandom;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Trains a small MLP cell-type classifier (genes → hidden → ReLU → cell types) on a Riffle dataset
 * of counts, with DJL's PyTorch engine, fed by {@link RiffleDataset}; evaluates on a held-out split
 * after each epoch. Prints per epoch the samples per second into the trainer, the stall time (the
 * trainer's wait for batches: the loader's stall as far as the background conversion does not hide
 * it), the mean training loss and the held-out accuracy.
 *
 * <p>{@code --generate N} first writes N cells from the realistic generator (sorted by cell type
 * unless {@code --order plate}) with an 80/20 train/test split; otherwise the dataset needs a
 * {@code train} and a {@code test} split ({@code riffle split DIR --name train --fraction 0.8
 * --seed 1 --rest test}). {@code --checkpoint DIR} saves parameters and loader state ({@link
 * CheckpointListener}); {@code --resume} continues from the latest one.
 *
 * <p>Why this file is a little long: most of it is the command's options; the loop itself (train,
 * evaluate, report) is kept in one place so that it reads as the example it is.
 */
@Command(
    name = "train-cell-types",
    mixinStandardHelpOptions = true,
    description =
        "Train an MLP cell-type classifier on a Riffle counts dataset with DJL (PyTorch).")
public final class TrainCellTypes implements Callable<Integer> {
  @Option(names = "--data", required = true, description = "The dataset directory.")
  Path data;

  @Option(
      names = "--generate",
      paramLabel = "N",
      description = "Write N generated cells to --data first (it must not hold a dataset).")
  Long generate;

  @Option(names = "--genes", description = "Genes (generate: default 2000; else from metadata).")
  Integer genes;

  @Option(
      names = "--order",
      defaultValue = "cell_type",
      description = "Generated row order: cell_type (sorted by type, then plate) or plate.")
  String order;

  @Option(names = "--sampler", defaultValue = "block", description = "sequential, random, block.")
  String sampler;

  @Option(names = "--block", defaultValue = "16", description = "Block rows b.")
  int block;

  @Option(names = "--fetch", defaultValue = "256", description = "Fetch factor f (batches).")
  int fetch;

  @Option(names = "--jitter", defaultValue = "0.25", description = "Block length jitter.")
  double jitter;

  @Option(names = "--batch", defaultValue = "256", description = "Batch rows.")
  int batch;

  @Option(names = "--epochs", defaultValue = "5", description = "Epochs.")
  int epochs;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of data, plan and weights.")
  long seed;

  @Option(names = "--hidden", defaultValue = "128", description = "Hidden units.")
  int hidden;

  @Option(names = "--optimizer", defaultValue = "adam", description = "adam or sgd.")
  String optimizer;

  @Option(names = "--lr", description = "Learning rate (default: adam 0.001, sgd 0.1).")
  Float lr;

  @Option(names = "--label", defaultValue = "cell_type", description = "Label column.")
  String label;

  @Option(names = "--indices", defaultValue = "indices", description = "Sparse indices column.")
  String indices;

  @Option(names = "--values", defaultValue = "values", description = "Sparse values column.")
  String values;

  @Option(
      names = "--normalize",
      defaultValue = "cp10k-log1p",
      description = "Counts preprocessing: cp10k-log1p, log1p or none.")
  String normalize;

  @Option(names = "--threads", defaultValue = "8", description = "Loader I/O threads.")
  int threads;

  @Option(names = "--memory-mb", defaultValue = "1024", description = "Loader memory budget.")
  long memoryMb;

  @Option(names = "--checkpoint", description = "Save checkpoints to this directory.")
  Path checkpoint;

  @Option(
      names = "--checkpoint-every",
      defaultValue = "0",
      description = "Also checkpoint every N batches (0: at epoch ends only).")
  long checkpointEvery;

  @Option(names = "--resume", description = "Continue from the latest checkpoint.")
  boolean resume;

  @Option(
      names = "--stop-after",
      paramLabel = "BATCHES",
      description = "Stop after this many training batches (to try --resume).")
  Long stopAfter;

  @Option(names = "--json", description = "Append one JSON line per epoch to this file.")
  Path json;

  private final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);

  /** What one epoch did. */
  record EpochResult(
      long epoch,
      long rows,
      double trainSeconds,
      double samplesPerSecond,
      double stallSeconds,
      double convertSeconds,
      double loss,
      double heldOutAccuracy,
      double evalSeconds) {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, with errors reported as one line naming what is wrong. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new TrainCellTypes());
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          cmd.getErr().println("train-cell-types: " + message(e));
          cmd.getErr().flush();
          return 1;
        });
    return cl;
  }

  private static String message(Throwable e) {
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  @Override
  public Integer call() throws Exception {
    if (generate != null) {
      int g = genes == null ? 2000 : genes;
      CellsDatasets.Order o =
          switch (order) {
            case "cell_type" -> CellsDatasets.Order.CELL_TYPE;
            case "plate" -> CellsDatasets.Order.PLATE;
            default ->
                throw new IllegalArgumentException(
                    "--order must be cell_type or plate, not '" + order + "'");
          };
      if (CellsDatasets.isGenerated(data, generate, g, seed, o)) {
        // Run as written again (the README's command): the same cells are there already.
        out.printf(Locale.ROOT, "%s already holds these %d generated cells%n", data, generate);
      } else {
        long t0 = System.nanoTime();
        CellsDatasets.write(data, generate, g, seed, o, 0.8);
        out.printf(
            Locale.ROOT,
            "generated %d cells x %d genes (sorted by %s) with train/test splits in %s (%.1f s)%n",
            generate,
            g,
            order,
            data,
            (System.nanoTime() - t0) / 1e9);
      }
    }
    run();
    return 0;
  }

  /** Trains and evaluates; returns each epoch's result (also printed). */
  List<EpochResult> run() throws Exception {
    OfflineEngine.start();
    // The dataset's own reads recycle their big buffers, as riffle load's do.
    try (BufferAllocator readAllocator = RecyclingAllocator.create(memoryMb << 20);
        Dataset d = Dataset.open(new LocalStorage(data), readAllocator);
        BufferAllocator batches = new RootAllocator()) {
      int width = genes != null ? genes : CellsDatasets.genes(d);
      if (width < 1) {
        throw new IllegalArgumentException(
            data + " does not say its number of genes in its metadata: give --genes");
      }
      DatasetView train = split(d, CellsDatasets.TRAIN);
      DatasetView test = split(d, CellsDatasets.TEST);
      List<String> classes = LabelNames.of(d, label);
      CheckpointListener.Checkpoint from = resume ? checkpointToResume() : null;
      LoaderOptions trainOptions =
          new LoaderOptions(
              sampler(),
              batch,
              seed,
              epochs,
              0,
              1,
              Tail.DROP,
              null,
              null,
              threads,
              2,
              memoryMb << 20);
      // Evaluation: every held-out row once per epoch, in order, padding rows left out.
      LoaderOptions testOptions =
          new LoaderOptions(
              new Sequential(fetch, block),
              batch,
              seed,
              epochs,
              0,
              1,
              Tail.PAD,
              null,
              null,
              threads,
              2,
              memoryMb << 20);
      Normalization norm = normalization();
      RiffleDataset.Builder trainBuilder =
          RiffleDataset.builder(train)
              .options(trainOptions)
              .sparse(indices, values, width)
              .label(label, classes.size())
              .normalization(norm)
              .allocator(batches);
      RiffleDataset.Builder testBuilder =
          RiffleDataset.builder(test)
              .options(testOptions)
              .sparse(indices, values, width)
              .label(label, classes.size())
              .normalization(norm)
              .allocator(batches)
              .trimPadding(true);
      if (from != null) {
        trainBuilder.resumeFrom(from.state());
        LoaderState testStart = Loader.startState(test, testOptions, from.state().epoch());
        testBuilder.resumeFrom(testStart);
      }
      try (RiffleDataset trainSet = trainBuilder.build();
          RiffleDataset testSet = testBuilder.build();
          Model model = Model.newInstance("cell-types")) {
        return train(model, trainSet, testSet, width, classes.size(), from);
      }
    }
  }

  private List<EpochResult> train(
      Model model,
      RiffleDataset trainSet,
      RiffleDataset testSet,
      int width,
      int classes,
      CheckpointListener.Checkpoint from)
      throws Exception {
    Engine.getInstance().setRandomSeed((int) seed);
    SequentialBlock mlp =
        new SequentialBlock()
            .add(Linear.builder().setUnits(hidden).build())
            .add(Activation::relu)
            .add(Linear.builder().setUnits(classes).build());
    model.setBlock(mlp);
    DefaultTrainingConfig config =
        new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
            .optOptimizer(optimizer())
            .optDevices(Engine.getInstance().getDevices(1));
    if (checkpoint != null) {
      config.addTrainingListeners(
          new CheckpointListener(
              trainSet, checkpoint, "mlp", checkpointEvery, from == null ? 0 : from.steps()));
    }
    List<EpochResult> results = new java.util.ArrayList<>();
    if (from != null) {
      // Before the trainer: its initialize() then keeps the loaded arrays and marks them as
      // needing gradients (loaded into an initialized model, they would not train).
      model.load(from.dir(), "mlp");
    }
    try (Trainer trainer = model.newTrainer(config)) {
      trainer.initialize(new Shape(batch, width));
      if (from != null) {
        out.printf(
            Locale.ROOT,
            "resumed from %s: epoch %d, batch %d (%d steps taken)%n",
            from.dir(),
            from.state().epoch(),
            from.state().batchCursor(),
            from.steps());
      }
      out.printf(
          Locale.ROOT,
          "training %s: %d train rows, %d test rows, %d genes, %d cell types, sampler %s, engine"
              + " %s %s on %s%n",
          model.getName(),
          trainSet.viewRowCount(),
          testSet.viewRowCount(),
          width,
          classes,
          trainSet.options().sampler().describe(),
          Engine.getInstance().getEngineName(),
          Engine.getInstance().getVersion(),
          trainer.getDevices()[0]);
      out.println("epoch  samples/s  stall_s  convert_s   loss     held-out_acc  train_s  eval_s");
      long trained = 0;
      while (!trainSet.finished() && trainSet.state().epoch() < epochs) {
        long epoch = trainSet.state().epoch();
        long t0 = System.nanoTime();
        double lossSum = 0;
        long rows = 0;
        boolean stopped = false;
        for (Batch b : trainer.iterateDataset(trainSet)) {
          try (b) {
            lossSum += step(trainer, b) * b.getSize();
            rows += b.getSize();
          }
          trained++;
          if (stopAfter != null && trained >= stopAfter) {
            stopped = true;
            break;
          }
        }
        double trainSeconds = (System.nanoTime() - t0) / 1e9;
        if (stopped) {
          out.printf(
              Locale.ROOT,
              "stopped after %d batches (epoch %d, next batch %d); --resume continues%n",
              trained,
              epoch,
              trainSet.state().batchCursor());
          break;
        }
        long t1 = System.nanoTime();
        double accuracy = evaluate(trainer, testSet);
        double evalSeconds = (System.nanoTime() - t1) / 1e9;
        trainer.notifyListeners(listener -> listener.onEpoch(trainer));
        RiffleDataset.EpochStats s = last(trainSet, epoch);
        EpochResult r =
            new EpochResult(
                epoch,
                rows,
                trainSeconds,
                rows / trainSeconds,
                s.waitNanos() / 1e9,
                s.convertNanos() / 1e9,
                lossSum / Math.max(1, rows),
                accuracy,
                evalSeconds);
        results.add(r);
        out.printf(
            Locale.ROOT,
            "%5d  %9.0f  %7.3f  %9.3f  %7.4f  %12.4f  %7.2f  %6.2f%n",
            r.epoch(),
            r.samplesPerSecond(),
            r.stallSeconds(),
            r.convertSeconds(),
            r.loss(),
            r.heldOutAccuracy(),
            r.trainSeconds(),
            r.evalSeconds());
        writeJson(r, trainSet);
      }
    }
    return results;
  }

  private static RiffleDataset.EpochStats last(RiffleDataset set, long epoch) {
    List<RiffleDataset.EpochStats> all = set.epochStats();
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).epoch() == epoch) {
        return all.get(i);
      }
    }
    throw new IllegalStateException("no batches were handed out in epoch " + epoch);
  }

  /** One optimizer step on a batch; returns the batch's mean loss. */
  private static float step(Trainer trainer, Batch b) {
    Device device = trainer.getDevices()[0];
    NDList data = b.getData().toDevice(device, false);
    NDList labels = b.getLabels().toDevice(device, false);
    float loss;
    try (GradientCollector collector = trainer.newGradientCollector()) {
      NDList predictions = trainer.forward(data, labels);
      NDArray l = trainer.getLoss().evaluate(labels, predictions);
      collector.backward(l);
      loss = l.getFloat();
      TrainingListener.BatchData batchData =
          new TrainingListener.BatchData(b, Map.of(device, labels), Map.of(device, predictions));
      trainer.notifyListeners(listener -> listener.onTrainingBatch(trainer, batchData));
    }
    trainer.step();
    return loss;
  }

  /** Held-out accuracy: one pass over the test set. */
  private static double evaluate(Trainer trainer, RiffleDataset testSet) throws Exception {
    long correct = 0;
    long total = 0;
    Device device = trainer.getDevices()[0];
    for (Batch b : trainer.iterateDataset(testSet)) {
      try (b) {
        NDList predictions = trainer.evaluate(b.getData().toDevice(device, false));
        NDArray labels = b.getLabels().head().toDevice(device, false);
        NDArray guess = predictions.singletonOrThrow().argMax(1).toType(DataType.INT64, false);
        correct += guess.eq(labels).sum().getLong();
        total += b.getSize();
      }
    }
    return total == 0 ? Double.NaN : (double) correct / total;
  }

  private void writeJson(EpochResult r, RiffleDataset trainSet) {
    if (json == null) {
      return;
    }
    ObjectNode o = new ObjectMapper().valueToTree(r);
    o.put("sampler", trainSet.options().sampler().describe());
    o.put("batch", batch);
    o.put("seed", seed);
    o.put("data", data.toString());
    try {
      Files.writeString(
          json,
          o + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + json, e);
    }
  }

  private CheckpointListener.Checkpoint checkpointToResume() throws IOException {
    if (checkpoint == null) {
      throw new IllegalArgumentException("--resume needs --checkpoint DIR");
    }
    return CheckpointListener.latest(checkpoint);
  }

  private DatasetView split(Dataset d, String name) throws IOException {
    if (!d.splitNames().contains(name)) {
      throw new IllegalArgumentException(
          data
              + " has no split '"
              + name
              + "' (splits: "
              + d.splitNames()
              + "); make them with: riffle split "
              + data
              + " --name train --fraction 0.8 --seed 1 --rest test");
    }
    return d.split(name);
  }

  private Sampler sampler() {
    return switch (sampler) {
      case "sequential" -> new Sequential(fetch, block);
      case "random" -> new TrueRandom(fetch, block);
      case "block" -> new BlockShuffle(block, fetch, jitter, false);
      default ->
          throw new IllegalArgumentException(
              "--sampler must be sequential, random or block, not '" + sampler + "'");
    };
  }

  private Normalization normalization() {
    return switch (normalize) {
      case "cp10k-log1p" -> Normalization.librarySizeLog1p(1e4);
      case "log1p" -> Normalization.log1p();
      case "none" -> Normalization.none();
      default ->
          throw new IllegalArgumentException(
              "--normalize must be cp10k-log1p, log1p or none, not '" + normalize + "'");
    };
  }

  private Optimizer optimizer() {
    return switch (optimizer) {
      case "adam" ->
          Optimizer.adam().optLearningRateTracker(Tracker.fixed(lr == null ? 0.001f : lr)).build();
      case "sgd" ->
          Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr == null ? 0.1f : lr)).build();
      default ->
          throw new IllegalArgumentException(
              "--optimizer must be adam or sgd, not '" + optimizer + "'");
    };
  }
}
