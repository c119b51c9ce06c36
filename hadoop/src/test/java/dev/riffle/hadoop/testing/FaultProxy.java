package dev.riffle.hadoop.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of the shared S3 server that breaks the client's connections on request,
 * without touching the server other tests use: it can reset the next connections as they arrive
 * ({@link #dropNext}), reset one connection mid-upload ({@link #resetUploadAfter}), reset one after
 * a PUT reached the server but before its answer reached the client ({@link #loseNextPutResponse}),
 * answer a PUT with 503 ({@link #slowDownNextPut}), stop like a server that died ({@link #down})
 * and come back on the same port ({@link #up}), do both on its own once some response bytes have
 * gone through ({@link #cutAfter}, a cut mid-download), or accept and never answer ({@link
 * #silent}). Counts connections, faults, cuts and response bytes, for assertions. The one proxy of
 * the fault tests of the hadoop, stage and cli modules (this test-jar).
 */
public final class FaultProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;
  private volatile boolean silent;

  public final AtomicLong connections = new AtomicLong();
  public final AtomicLong faults = new AtomicLong();

  /** Response bytes relayed to clients. */
  public final AtomicLong bytesDown = new AtomicLong();

  /** Cuts made by {@link #cutAfter}. */
  public final AtomicLong cuts = new AtomicLong();

  private final AtomicLong cutAt = new AtomicLong(Long.MAX_VALUE);
  private volatile long downMillis;
  private final AtomicInteger dropNext = new AtomicInteger();
  private final AtomicLong resetUploadAfter = new AtomicLong(Long.MAX_VALUE);
  private final AtomicBoolean losePutResponse = new AtomicBoolean();
  private final AtomicBoolean slowDownPut = new AtomicBoolean();

  /** A relay to {@code host:port}, listening on a free loopback port. */
  public FaultProxy(String host, int targetPort) throws IOException {
    this.target = new InetSocketAddress(host, targetPort);
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.port = s.getLocalPort();
    listen(s);
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /**
   * Once {@code bytes} more response bytes have passed: {@link #down} for {@code millis}, then
   * {@link #up}. {@code Long.MAX_VALUE} disarms it.
   */
  public void cutAfter(long bytes, long millis) {
    downMillis = millis;
    cutAt.set(bytes == Long.MAX_VALUE ? Long.MAX_VALUE : bytesDown.get() + bytes);
  }

  /** Resets the next {@code n} connections as soon as they are accepted. */
  public void dropNext(int n) {
    dropNext.set(n);
  }

  /** Resets the first connection that carries more than {@code bytes} of request bytes, once. */
  public void resetUploadAfter(long bytes) {
    resetUploadAfter.set(bytes);
  }

  /**
   * Once: lets the next PUT reach the server, then resets the connection when the server's final
   * answer comes back, so the object exists but the client never hears so.
   */
  public void loseNextPutResponse() {
    losePutResponse.set(true);
  }

  /**
   * Once: answers the next PUT (an upload or one of its parts) itself with 503 SlowDown, as S3 does
   * under load, without passing it on.
   */
  public void slowDownNextPut() {
    slowDownPut.set(true);
  }

  /** Accepts connections (and keeps them open) but never forwards or answers anything. */
  public void silent(boolean on) {
    silent = on;
  }

  /**
   * Resets every open connection (the client's pooled ones included) but keeps listening, so that
   * no other socket can take the port meanwhile (as one could after {@link #down}).
   */
  public void resetAll() {
    for (Socket c : open) {
      reset(c);
    }
    open.clear();
  }

  /** Like a server that stopped: open connections reset, new ones refused, until {@link #up}. */
  public synchronized void down() throws IOException {
    ServerSocket s = server;
    server = null;
    if (s != null) {
      s.close();
    }
    for (Socket c : open) {
      reset(c);
    }
    open.clear();
  }

  /** Listens again on the same port after {@link #down}. */
  public synchronized void up() throws IOException {
    if (server == null) {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
      listen(s);
    }
  }

  private void cut() {
    cuts.incrementAndGet();
    try {
      down();
    } catch (IOException e) {
      // down() only closes sockets.
    }
    Thread t =
        new Thread(
            () -> {
              try {
                Thread.sleep(downMillis);
                up();
              } catch (InterruptedException | IOException e) {
                // The test fails on its own if the proxy never comes back.
              }
            },
            "fault-proxy-restore-" + port);
    t.setDaemon(true);
    t.start();
  }

  private void listen(ServerSocket s) {
    server = s;
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try {
                  Socket client = s.accept();
                  connections.incrementAndGet();
                  open.add(client);
                  if (dropNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    faults.incrementAndGet();
                    reset(client);
                    continue;
                  }
                  if (silent) {
                    continue;
                  }
                  Socket upstream = new Socket();
                  upstream.connect(target, 2000);
                  synchronized (FaultProxy.this) {
                    // Accepted just before down(): a connection that outlived it would carry the
                    // client's pooled requests through the "stopped" server.
                    if (server != s) {
                      reset(client);
                      closeQuietly(upstream);
                      continue;
                    }
                    open.add(upstream);
                  }
                  Connection c = new Connection(client, upstream);
                  pump(c, client, upstream, true);
                  pump(c, upstream, client, false);
                } catch (IOException e) {
                  // Closed by down() or close(): the loop ends.
                }
              }
            },
            "fault-proxy-accept-" + port);
    t.setDaemon(true);
    t.start();
  }

  /**
   * One relayed connection: the request bytes it carried, and whether its last request was a PUT.
   */
  private static final class Connection {
    final Socket client;
    final Socket upstream;
    final AtomicLong requestBytes = new AtomicLong();
    volatile boolean putPending;
    volatile boolean losingResponse;

    Connection(Socket client, Socket upstream) {
      this.client = client;
      this.upstream = upstream;
    }
  }

  private void pump(Connection c, Socket from, Socket to, boolean request) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[64 << 10];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  if (request
                      && startsWith(buf, n, "PUT ")
                      && slowDownPut.compareAndSet(true, false)) {
                    faults.incrementAndGet();
                    c.client.getOutputStream().write(SLOW_DOWN);
                    c.client.getOutputStream().flush();
                    reset(c.upstream);
                    closeQuietly(c.client);
                    return;
                  }
                  if (request ? faultOnRequest(c, buf, n) : faultOnResponse(c, buf, n)) {
                    faults.incrementAndGet();
                    reset(c.client);
                    reset(c.upstream);
                    return;
                  }
                  out.write(buf, 0, n);
                  if (!request) {
                    long at = cutAt.get();
                    // One cut per arming, however many connections cross the mark together.
                    if (bytesDown.addAndGet(n) >= at && cutAt.compareAndSet(at, Long.MAX_VALUE)) {
                      cut();
                      return;
                    }
                  }
                }
              } catch (IOException e) {
                // One side closed: close the other so the peer sees it too.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "fault-proxy-pump-" + port);
    t.setDaemon(true);
    t.start();
  }

  private static final byte[] SLOW_DOWN = slowDown();

  private static byte[] slowDown() {
    String body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message></Error>";
    return ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
            + body.length()
            + "\r\nConnection: close\r\n\r\n"
            + body)
        .getBytes(StandardCharsets.US_ASCII);
  }

  private boolean faultOnRequest(Connection c, byte[] buf, int n) {
    // Requests on one connection take turns with their answers, so a request line starts a read.
    if (startsWith(buf, n, "PUT ")) {
      c.putPending = true;
      if (losePutResponse.compareAndSet(true, false)) {
        c.losingResponse = true;
      }
    }
    long at = resetUploadAfter.get();
    return c.requestBytes.addAndGet(n) > at && resetUploadAfter.compareAndSet(at, Long.MAX_VALUE);
  }

  private static boolean faultOnResponse(Connection c, byte[] buf, int n) {
    // "100 Continue" comes before the body; the final answer is what must be lost.
    if (c.putPending && !startsWith(buf, n, "HTTP/1.1 100")) {
      c.putPending = false;
      if (c.losingResponse) {
        c.losingResponse = false;
        return true;
      }
    }
    return false;
  }

  private static boolean startsWith(byte[] buf, int n, String prefix) {
    byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
    if (n < p.length) {
      return false;
    }
    for (int i = 0; i < p.length; i++) {
      if (buf[i] != p[i]) {
        return false;
      }
    }
    return true;
  }

  /** Closes with a TCP reset, as a crashed server or a broken network path does. */
  private static void reset(Socket s) {
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // Already closed.
    }
    closeQuietly(s);
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() throws IOException {
    cutAt.set(Long.MAX_VALUE);
    down();
  }
}
