package io.portcullis.world;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ServerSocketFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The origins of one site, as a process of its own inside the site's namespace (a thread cannot
 * move between network namespaces, a process can be started in one). JDK only. Prints one ready
 * line once every port listens, and exits when its standard input closes.
 *
 * <pre>OriginMain --name N --dir RECORDS [--http P]... [--tls P --keystore F --storepass S]... [--echo P]... [--bulk P]...</pre>
 */
public final class OriginMain {
    private OriginMain() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        List<Integer> ports = new ArrayList<>();
        HttpOrigin http = new HttpOrigin(options.name, Objects.requireNonNull(options.dir, "--dir"));
        for (int port : options.http) {
            ports.add(start(ServerSocketFactory.getDefault(), port, http));
        }
        if (!options.tls.isEmpty()) {
            ServerSocketFactory tls =
                    tlsFactory(Objects.requireNonNull(options.keystore, "--keystore"), options.storepass);
            for (int port : options.tls) {
                ports.add(start(tls, port, http));
            }
        }
        for (int port : options.echo) {
            ports.add(start(ServerSocketFactory.getDefault(), port, new EchoOrigin()));
        }
        for (int port : options.bulk) {
            ports.add(start(ServerSocketFactory.getDefault(), port, new BulkOrigin()));
        }
        System.out.println("{\"ready\":" + HttpOrigin.quote(options.name) + ",\"ports\":" + ports + "}");
        System.out.flush();
        try (InputStream lifeline = System.in) {
            lifeline.transferTo(OutputStream.nullOutputStream());
        }
        System.exit(0);
    }

    private static int start(ServerSocketFactory factory, int port, Origin origin) throws IOException {
        ServerSocket server = OriginServer.listen(factory, port);
        OriginServer.acceptForever(server, origin);
        return server.getLocalPort();
    }

    private static ServerSocketFactory tlsFactory(Path keystore, String storepass)
            throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, storepass.toCharArray());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, storepass.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context.getServerSocketFactory();
    }

    private static final class Options {
        String name = "origin";

        @Nullable
        Path dir;

        @Nullable
        Path keystore;

        String storepass = "";
        final List<Integer> http = new ArrayList<>();
        final List<Integer> tls = new ArrayList<>();
        final List<Integer> echo = new ArrayList<>();
        final List<Integer> bulk = new ArrayList<>();

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i + 1 < args.length; i += 2) {
                String value = args[i + 1];
                switch (args[i]) {
                    case "--name" -> o.name = value;
                    case "--dir" -> o.dir = Path.of(value);
                    case "--keystore" -> o.keystore = Path.of(value);
                    case "--storepass" -> o.storepass = value;
                    case "--http" -> o.http.add(Integer.parseInt(value));
                    case "--tls" -> o.tls.add(Integer.parseInt(value));
                    case "--echo" -> o.echo.add(Integer.parseInt(value));
                    case "--bulk" -> o.bulk.add(Integer.parseInt(value));
                    default ->
                        throw new IllegalArgumentException("option: " + args[i] + " (expected: --name, --dir,"
                                + " --keystore, --storepass, --http, --tls, --echo, --bulk)");
                }
            }
            if (args.length % 2 != 0 || o.dir == null || (!o.tls.isEmpty() && o.keystore == null)) {
                throw new IllegalArgumentException("usage: OriginMain --name N --dir RECORDS [--http P]..."
                        + " [--tls P --keystore F --storepass S]... [--echo P]... [--bulk P]...");
            }
            return o;
        }
    }
}
