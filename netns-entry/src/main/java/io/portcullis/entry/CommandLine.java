package io.portcullis.entry;

import io.portcullis.wire.Handoff;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Parses {@code portcullis entry} arguments and its one variable, the spawn's hand-over key,
 * reporting every problem at once. Pure: no I/O.
 */
final class CommandLine {

    static final String USAGE = """
            Usage: portcullis entry --relay SOCK [--proxy-port N] [--forward N]... [--door N]
                                    [--named ADDRESS:PORT]... [--dns] [--ready-fd N] [-- CMD ARGS...]

            Binds the namespace's listening sockets on 127.0.0.1 (and ::1 when the namespace has it),
            hands them to the relay over its unix socket, announces readiness, then becomes CMD.

            The spawn's hand-over key (handoffKey in the relay's ready line or the daemon's answer)
            comes in the environment, never on the command line, which every process can read:

              PORTCULLIS_HANDOFF_KEY   64 hex digits; removed before CMD starts

              --relay SOCK     the spawn's unix socket, made by the relay
              --proxy-port N   the HTTP proxy port (default 39080); moves up past forwards and the door
              --forward N      a loopback port forwarded to the same port on the host (repeatable)
              --door N         the gateway's door port inside the namespace
              --named A:P      a listed tcp entry's synthetic address in 127.77.0.0/16 and its port
                               (repeatable; the relay's ready line lists them)
              --dns            bind UDP 127.0.0.1:53, the namespace's DNS, answered by the relay
              --ready-fd N     write the readiness line to file descriptor N instead of stdout
              -- CMD ARGS      become CMD (execve) with only fds 0-2 and the proxy variables
              --help           this text
              --version        the version line, as every portcullis command prints it

            Exit: the command's own status (the command is this process); without a command, 0 once
            ready. 2 on a usage error (PORTCULLIS_HANDOFF_KEY missing or malformed included), 125
            when a socket cannot be bound or the relay refuses the hand-over, 126/127 when CMD cannot
            run.
            """;

    /** The line {@code --version} prints: the same as {@code portcullis --version} (relay's cli.Main). */
    static final String VERSION = "portcullis 0.1.0";

    /** Longest socket path the kernel takes in sockaddr_un, without the terminating NUL. */
    static final int MAX_SOCKET_PATH_BYTES = 107;

    /** What the arguments ask for. */
    sealed interface Parsed permits Run, Help, Version, Usage {}

    record Run(EntryOptions options) implements Parsed {}

    record Help() implements Parsed {}

    record Version() implements Parsed {}

    record Usage(List<String> problems) implements Parsed {
        Usage {
            problems = List.copyOf(problems);
        }
    }

    private final List<String> problems = new ArrayList<>();
    /** Null until {@code --relay} is read; {@link #check} says so when it never is. */
    private @Nullable Path relay;

    /** Null until the key is read; {@link #key} says so when it is missing or malformed. */
    private Handoff.@Nullable Key key;

    private int proxyPort = EntryOptions.DEFAULT_PROXY_PORT;
    private final List<Integer> forwards = new ArrayList<>();
    private OptionalInt door = OptionalInt.empty();
    private final List<InetSocketAddress> named = new ArrayList<>();
    private boolean dns;
    private OptionalInt readyFd = OptionalInt.empty();
    private List<String> command = List.of();

    private CommandLine() {}

    /** @param environment the entry's environment, of which only {@value Handoff.Key#ENVIRONMENT} is read */
    static Parsed parse(Map<String, String> environment, String... args) {
        return new CommandLine().read(Arrays.asList(args), environment);
    }

    private Parsed read(List<String> args, Map<String, String> environment) {
        int i = 0;
        while (i < args.size()) {
            String arg = args.get(i++);
            if (arg.equals("--")) {
                command = args.subList(i, args.size());
                if (command.isEmpty()) {
                    problems.add("--: nothing after it (expected: a command)");
                }
                break;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                return new Help();
            }
            if (arg.equals("--version") || arg.equals("-V")) {
                return new Version();
            }
            if (arg.equals("--dns")) {
                if (dns) {
                    problems.add("--dns: given twice (expected: once)");
                }
                dns = true;
                continue;
            }
            int equals = arg.indexOf('=');
            boolean inline = arg.startsWith("--") && equals > 0;
            String name = inline ? arg.substring(0, equals) : arg;
            @Nullable String value;
            if (inline) {
                value = arg.substring(equals + 1);
            } else if (i < args.size() && isOption(name)) {
                value = args.get(i++);
            } else {
                value = null;
            }
            option(name, value);
        }
        key(environment.get(Handoff.Key.ENVIRONMENT));
        check();
        return problems.isEmpty()
                ? new Run(new EntryOptions(
                        Objects.requireNonNull(relay, "--relay"),
                        Objects.requireNonNull(key, Handoff.Key.ENVIRONMENT),
                        proxyPort,
                        forwards,
                        door,
                        named,
                        dns,
                        readyFd,
                        command))
                : new Usage(problems);
    }

    private static boolean isOption(String name) {
        return Set.of("--relay", "--proxy-port", "--forward", "--door", "--named", "--ready-fd")
                .contains(name);
    }

    private void option(String name, @Nullable String value) {
        if (!name.startsWith("-")) {
            problems.add(name + ": unexpected argument (expected: an option, or -- before the command)");
            return;
        }
        if (!isOption(name)) {
            problems.add(name + ": unknown option (expected: --relay, --proxy-port, --forward, --door, --named,"
                    + " --dns, --ready-fd, --help or -- CMD)");
            return;
        }
        if (value == null) {
            problems.add(name + ": no value (expected: "
                    + switch (name) {
                        case "--relay" -> "a socket path";
                        case "--named" -> "an address in 127.77.0.0/16 and a port, 127.77.0.1:5432";
                        default -> "a number";
                    }
                    + ")");
            return;
        }
        switch (name) {
            case "--relay" -> relay(value);
            case "--proxy-port" -> proxyPort = port(name, value, proxyPort);
            case "--forward" -> forward(value);
            case "--door" -> door = OptionalInt.of(port(name, value, 0));
            case "--named" -> named(value);
            default -> readyFd = OptionalInt.of(number(name, value, 1, Integer.MAX_VALUE, "1 or more"));
        }
    }

    private void relay(String value) {
        if (relay != null) {
            problems.add("--relay: given twice (expected: one socket path)");
        } else if (value.isEmpty() || value.indexOf('\0') >= 0) {
            problems.add("--relay: '" + value + "' (expected: a socket path)");
        } else if (value.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            problems.add("--relay: " + value + " (expected: at most " + MAX_SOCKET_PATH_BYTES + " bytes)");
        } else {
            relay = Path.of(value);
        }
    }

    /** The key as the relay wrote it; a problem never repeats the value, which may be a key. */
    private void key(@Nullable String value) {
        if (value == null) {
            problems.add(Handoff.Key.ENVIRONMENT + ": not set (expected: the spawn's handoffKey, 64 hex digits,"
                    + " from the relay's ready line or the daemon's answer)");
            return;
        }
        try {
            key = Handoff.Key.parse(value);
        } catch (IllegalArgumentException e) {
            problems.add(Handoff.Key.ENVIRONMENT + ": " + e.getMessage());
        }
    }

    private void forward(String value) {
        int port = port("--forward", value, 0);
        if (port == 0) {
            return;
        }
        if (forwards.contains(port)) {
            problems.add("--forward: " + port + " given twice (expected: distinct ports)");
        } else {
            forwards.add(port);
        }
    }

    /** {@code 127.77.x.y:PORT}, the form the relay's ready line gives (SPEC R24). */
    private void named(String value) {
        int colon = value.lastIndexOf(':');
        String address = colon < 0 ? value : value.substring(0, colon);
        String[] bytes = address.split("\\.", -1);
        boolean synthetic = bytes.length == 4 && bytes[0].equals("127") && bytes[1].equals("77");
        int third = synthetic ? octet(bytes[2]) : -1;
        int fourth = synthetic ? octet(bytes[3]) : -1;
        if (colon < 0 || third < 0 || fourth < 0 || (third == 0 && fourth == 0)) {
            problems.add("--named: " + value + " (expected: an address in 127.77.0.0/16 and a port, 127.77.0.1:5432)");
            return;
        }
        int port = port("--named", value.substring(colon + 1), 0);
        if (port == 0) {
            return;
        }
        InetSocketAddress socket = new InetSocketAddress(InetAddress.ofLiteral("127.77." + third + "." + fourth), port);
        if (named.contains(socket)) {
            problems.add("--named: " + value + " given twice (expected: distinct sockets)");
        } else {
            named.add(socket);
        }
    }

    /** A decimal 0-255 without a sign or leading zeros; -1 otherwise. */
    private static int octet(String text) {
        if (text.isEmpty()
                || text.length() > 3
                || !text.chars().allMatch(c -> c >= '0' && c <= '9')
                || (text.length() > 1 && text.charAt(0) == '0')) {
            return -1;
        }
        int value = Integer.parseInt(text);
        return value <= 255 ? value : -1;
    }

    private int port(String name, String value, int fallback) {
        int port = number(name, value, 1, 65535, "1-65535");
        return port == 0 ? fallback : port;
    }

    /** The number, or 0 after recording a problem. */
    private int number(String name, String value, int min, int max, String expected) {
        try {
            int number = Integer.parseInt(value);
            if (number >= min && number <= max && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return number;
            }
        } catch (NumberFormatException e) {
            // reported below with the same message as a number out of range
        }
        problems.add(name + ": " + value + " (expected: " + expected + ")");
        return 0;
    }

    private void check() {
        if (relay == null && problems.stream().noneMatch(p -> p.startsWith("--relay"))) {
            problems.add("--relay: missing (expected: the relay's unix socket path)");
        }
        if (door.isPresent() && forwards.contains(door.getAsInt())) {
            problems.add("--door: " + door.getAsInt() + " is also a forward (expected: a port of its own)");
        }
        Set<Integer> taken = new HashSet<>(forwards);
        door.ifPresent(taken::add);
        if (EntryOptions.proxyPortPast(proxyPort, taken) > 65535) {
            problems.add("--proxy-port: " + proxyPort
                    + " (expected: a free port at or above it, past forwards and the door, up to 65535)");
        }
    }
}
