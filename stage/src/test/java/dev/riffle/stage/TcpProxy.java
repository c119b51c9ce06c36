package dev.riffle.stage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of the shared S3 server, so a test can make "the server" die and come back
 * without touching the server other tests use: {@link #down} closes every connection and stops
 * listening (new connections are refused, as from a stopped server), {@link #up} listens again on
 * the same port, and {@link #cutAfter} does both on its own once a number of response bytes has
 * gone through, so the cut lands mid-transfer.
 */
final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;

  final AtomicLong bytesDown = new AtomicLong();
  final AtomicLong connections = new AtomicLong();
  final AtomicLong cuts = new AtomicLong();
  private final AtomicLong cutAt = new AtomicLong(Long.MAX_VALUE);
  private volatile long downMillis;

  TcpProxy(String host, int targetPort) throws IOException {
    this.target = new InetSocketAddress(host, targetPort);
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.port = s.getLocalPort();
    listen(s);
  }

  int port() {
    return port;
  }

  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Once {@code bytes} more response bytes have passed: down for {@code millis}, then up. */
  void cutAfter(long bytes, long millis) {
    downMillis = millis;
    cutAt.set(bytes == Long.MAX_VALUE ? Long.MAX_VALUE : bytesDown.get() + bytes);
  }

  /** Like a server that stopped: open connections reset, new ones refused. */
  synchronized void down() throws IOException {
    ServerSocket s = server;
    server = null;
    if (s != null) {
      s.close();
    }
    for (Socket c : open) {
      closeQuietly(c);
    }
    open.clear();
  }

  /** Listens again on the same port. */
  synchronized void up() throws IOException {
    if (server == null) {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
      listen(s);
    }
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
                  Socket upstream = new Socket();
                  upstream.connect(target, 2000);
                  synchronized (TcpProxy.this) {
                    // Accepted just before down(): a connection that outlived the cut would
                    // carry the client's pooled requests through the "stopped" server.
                    if (server != s) {
                      closeQuietly(client);
                      closeQuietly(upstream);
                      continue;
                    }
                    open.add(client);
                    open.add(upstream);
                  }
                  pump(client, upstream, false);
                  pump(upstream, client, true);
                } catch (IOException e) {
                  // Closed by down() or close(), or the server refused: the client sees a reset.
                }
              }
            },
            "proxy-accept-" + port);
    t.setDaemon(true);
    t.start();
  }

  private void pump(Socket from, Socket to, boolean response) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[64 << 10];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  out.write(buf, 0, n);
                  long at = cutAt.get();
                  // One cut per arming, however many connections cross the mark together.
                  if (response
                      && bytesDown.addAndGet(n) >= at
                      && cutAt.compareAndSet(at, Long.MAX_VALUE)) {
                    cut();
                    return;
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
            "proxy-pump-" + port);
    t.setDaemon(true);
    t.start();
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
            "proxy-restore-" + port);
    t.setDaemon(true);
    t.start();
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
