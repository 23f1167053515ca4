package io.portcullis.entry;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The spawn's command, started after readiness with only fds 0-2 (the JDK's launcher closes every
 * other descriptor in the child) and with the proxy variables pointing at the entry.
 */
final class Child {

    static final String NO_PROXY = "localhost,127.0.0.1,::1";

    /** As a shell reports them: the command was found but could not run, or was not found. */
    static final int CANNOT_EXECUTE = 126;

    static final int NOT_FOUND = 127;

    private Child() {}

    static Process start(List<String> command, int proxyPort) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(proxyEnvironment(proxyPort));
        return builder.start();
    }

    static Map<String, String> proxyEnvironment(int proxyPort) {
        String proxy = "http://127.0.0.1:" + proxyPort;
        return Map.of(
                "HTTP_PROXY", proxy,
                "HTTPS_PROXY", proxy,
                "http_proxy", proxy,
                "https_proxy", proxy,
                "NO_PROXY", NO_PROXY,
                "no_proxy", NO_PROXY);
    }

    /** The JDK reports a child killed by signal S as 128+S, the shell's convention. */
    static int await(Process process) throws InterruptedException {
        return process.waitFor();
    }

    /** Maps the JDK's launch failure to the shell's status for it. */
    static int launchFailureStatus(IOException failure) {
        String message = String.valueOf(failure.getMessage());
        return message.contains("error=2,") || message.contains("No such file") ? NOT_FOUND : CANNOT_EXECUTE;
    }
}
