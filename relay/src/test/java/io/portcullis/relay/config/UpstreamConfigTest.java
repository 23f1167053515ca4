package io.portcullis.relay.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.relay.policy.HostConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The host configuration's {@code upstream} (SPEC R25) and new-connection rate (SPEC R16), read. */
class UpstreamConfigTest {
    @TempDir
    Path dir;

    @Test
    void absentMeansDirect() throws ConfigException {
        assertEquals(Optional.empty(), HostConfigJson.parse("t", "{}").upstream());
    }

    @Test
    void readsEveryField() throws Exception {
        Path credentials = secret("alice:s3cr:et\n");
        HostConfig host = HostConfigJson.parse("t", """
                {"upstream": {"proxy": "http://Proxy.Corp.Example:3128/", "credentialsFile": "%s",
                              "bypass": ["10.0.0.0/8", "192.0.2.7", "fd00::1", "Intranet.Example."], "sendNames": true},
                 "limits": {"spawnRate": 50, "spawnBurst": 60}}""".formatted(credentials));
        HostConfig.Upstream upstream = host.upstream().orElseThrow();
        assertEquals("proxy.corp.example:3128", upstream.proxy().toString());
        assertEquals(
                Optional.of("Basic "
                        + Base64.getEncoder().encodeToString("alice:s3cr:et".getBytes(StandardCharsets.UTF_8))),
                upstream.authorization());
        assertEquals(
                List.of("10.0.0.0/8", "192.0.2.7/32", "fd00::1/128"),
                upstream.bypassBlocks().stream().map(Object::toString).toList());
        assertEquals(List.of("intranet.example"), upstream.bypassNames());
        assertTrue(upstream.sendNames());
        assertFalse(upstream.toString().contains("Basic"), upstream.toString());
        assertEquals(50, host.limits().spawnRate());
        assertEquals(60, host.limits().spawnBurst());
    }

    /** Who may hold a local proxy's or DNS server's port (R25): the default, or exactly the uids named. */
    @Test
    void readsTheUidsOfLocalServers() throws ConfigException {
        HostConfig defaults = HostConfigJson.parse("t", "{\"upstream\": {\"proxy\": \"http://127.0.0.1:3128\"}}");
        assertEquals(
                HostConfig.HolderUids.DEFAULT, defaults.upstream().orElseThrow().uids());
        assertEquals(HostConfig.HolderUids.DEFAULT, defaults.dns().uids());
        HostConfig named = HostConfigJson.parse("t", """
                {"upstream": {"proxy": "http://127.0.0.1:3128", "uids": [0, 4294967294]},
                 "dns": {"servers": ["127.0.0.1:5353"], "uids": [991]}}""");
        assertEquals(
                Optional.of(Set.of(0, -2)),
                named.upstream().orElseThrow().uids().named());
        assertEquals(Optional.of(Set.of(991)), named.dns().uids().named());
    }

    @Test
    void defaultsOfTheRate() throws ConfigException {
        HostConfig.Limits limits = HostConfigJson.parse("t", "{}").limits();
        assertEquals(List.of(200, 400), List.of(limits.spawnRate(), limits.spawnBurst()));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {"upstream": "http://p:3128"}                       | upstream: "http://p:3128" (expected: an object)
            {"upstream": {}}                                    | upstream.proxy: missing (expected: a string)
            {"upstream": {"proxy": "p:3128"}}                   | upstream.proxy: "p:3128" (expected: http://host:port, e.g. http://proxy.corp.example:3128)
            {"upstream": {"proxy": "https://p:3128"}}           | upstream.proxy: "https://p:3128" (expected: http://host:port, e.g. http://proxy.corp.example:3128)
            {"upstream": {"proxy": "http://p"}}                 | upstream.proxy: "http://p" (expected: http://host:port, e.g. http://proxy.corp.example:3128)
            {"upstream": {"proxy": "http://u:pw@p:3128"}}       | upstream.proxy: "http://u:pw@p:3128" (expected: no credentials in the address; they go in credentialsFile)
            {"upstream": {"proxy": "http://169.254.169.254:80"}} | upstream.proxy: 169.254.169.254:80 (expected: an address outside the deny list; it is in 169.254.169.254/32)
            {"upstream": {"proxy": "http://p:1", "bypass": ["10.0.0.1/8"]}} | upstream.bypass[0]: "10.0.0.1/8" (expected: an address, a block such as 10.0.0.0/8, or an exact name)
            {"upstream": {"proxy": "http://p:1", "bypass": ["*.corp"]}}     | upstream.bypass[0]: "*.corp" (expected: one exact DNS name, e.g. gate.example)
            {"upstream": {"proxy": "http://p:1", "sendNames": "yes"}}       | upstream.sendNames: "yes" (expected: true or false)
            {"upstream": {"proxy": "http://p:1", "credentialsFile": "rel"}} | upstream.credentialsFile: "rel" (expected: an absolute path)
            {"upstream": {"proxy": "http://p:1", "via": 1}}                 | upstream.via: unknown field (expected: one of proxy, credentialsFile, bypass, sendNames, uids)
            {"upstream": {"proxy": "http://p:1", "uids": []}}               | upstream.uids: [] (expected: at least one uid, e.g. [0, 991])
            {"upstream": {"proxy": "http://p:1", "uids": [1.5]}}            | upstream.uids[0]: 1.5 (expected: a uid 0-4294967294)
            {"limits": {"spawnRate": 0}}                        | limits.spawnRate: 0 (expected: an integer 1-1000000)
            {"limits": {"spawnBurst": 1.5}}                     | limits.spawnBurst: 1.5 (expected: an integer 1-10000000)
            """)
    void oneProblem(String json, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> HostConfigJson.parse("t", json));
        assertEquals(List.of(problem), e.problems());
    }

    /** file content | mode | the expected sentence of the problem. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            alice:pw          | rw-r--r-- | a file that only its owner and group can read (chmod 0600 or 0640)
            `'alice'`         | rw------- | one line user:password, the user not empty and without ':'
            `':pw'`           | rw------- | one line user:password, the user not empty and without ':'
            `'alice:pw\\nx'`   | rw------- | one line user:password, the user not empty and without ':'
            """)
    void refusesBadCredentials(String content, String mode, String expected) throws Exception {
        Path file = dir.resolve("credentials");
        Files.writeString(file, content.replace("'", "").replace("\\n", "\n"));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> HostConfigJson.parse(
                        "t", "{\"upstream\": {\"proxy\": \"http://p:1\", \"credentialsFile\": \"" + file + "\"}}"));
        assertEquals(List.of("upstream.credentialsFile: \"" + file + "\" (expected: " + expected + ")"), e.problems());
    }

    @Test
    void aCredentialsFileThatIsALinkIsNotFollowed() throws Exception {
        Path elsewhere = secret("mallory:taken\n");
        Path link = dir.resolve("link");
        Files.createSymbolicLink(link, elsewhere);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UpstreamCredentials.read(link));
        assertTrue(e.getMessage().startsWith("a readable file of one line user:password (open: "), e.getMessage());
        assertTrue(!e.getMessage().contains("mallory") && !e.getMessage().contains("taken"), e.getMessage());
    }

    /**
     * Where {@code fs.protected_hardlinks} is 0, whoever may write the folder can give another file
     * of the relay's uid (0600, so every other check passes) the credentials file's name; its first
     * line would go to the upstream proxy. Root links regardless, so the test makes the link itself.
     */
    @Test
    void aCredentialsFileWithASecondNameIsRefused() throws Exception {
        Path elsewhere = secret("db:theirs\n");
        Path file = Files.createLink(dir.resolve("credentials"), elsewhere);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UpstreamCredentials.read(file));
        assertEquals("a file of one name (it has 2 hard links: copy it rather than link it)", e.getMessage());
    }

    @Test
    void aCredentialsFileReplacedOnceOpenIsStillTheFileCheckedAndRead() throws Exception {
        Path file = secret("alice:pw\n");
        Path other = dir.resolve("other");
        Files.writeString(other, "mallory:taken\n");
        Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals(
                basic("alice:pw"),
                UpstreamCredentials.read(file, () -> swap(other, file)),
                "the open file is the one checked and read, whatever the name gives meanwhile");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UpstreamCredentials.read(file));
        assertEquals(
                "a file that only its owner and group can read (chmod 0600 or 0640)",
                e.getMessage(),
                "read again, the file in place now is checked");
    }

    @Test
    void aFifoInPlaceOfTheCredentialsFileIsRefusedWithoutWaiting() throws Exception {
        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo");
        IllegalArgumentException e = assertTimeoutPreemptively(
                Duration.ofSeconds(10),
                () -> assertThrows(IllegalArgumentException.class, () -> UpstreamCredentials.read(fifo)),
                "no writer ever opens the FIFO: a read that waited on it would never end");
        assertEquals("a regular file of one line user:password, at most 4096 bytes", e.getMessage());
    }

    private static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0} bytes")
    @CsvSource({"4096, true", "4097, false"})
    void aCredentialsFileHoldsAtMost4096Bytes(int size, boolean fits) throws Exception {
        Path file = secret("alice:" + "p".repeat(size - "alice:".length()));
        if (fits) {
            assertTrue(UpstreamCredentials.read(file).startsWith("Basic "));
        } else {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> UpstreamCredentials.read(file));
            assertEquals("a regular file of one line user:password, at most 4096 bytes", e.getMessage());
        }
    }

    /** Moves {@code from} over {@code to}, as someone who may write the folder could. */
    private static void swap(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aMissingCredentialsFileIsAProblemNotASecretInTheMessage() throws Exception {
        Path file = dir.resolve("absent");
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> HostConfigJson.parse(
                        "t", "{\"upstream\": {\"proxy\": \"http://p:1\", \"credentialsFile\": \"" + file + "\"}}"));
        assertTrue(
                e.problems()
                        .getFirst()
                        .startsWith("upstream.credentialsFile: \"" + file + "\" (expected: a readable file"),
                e.problems().toString());
    }

    /** name | checked addresses | bypass blocks and names | bypassed. */
    @ParameterizedTest(name = "{0} {1} with {2}")
    @CsvSource(delimiter = '|', textBlock = """
            intranet.example | 203.0.113.5          | intranet.example          | true
            www.example      | 10.1.2.3             | 10.0.0.0/8                | true
            www.example      | 10.1.2.3 203.0.113.5 | 10.0.0.0/8                | false
            www.example      | 203.0.113.5          | 10.0.0.0/8 intranet.example | false
            -                | 10.1.2.3             | 10.0.0.0/8                | true
            -                | fd00::7              | fd00::/8                  | true
            """)
    void bypass(String name, String addresses, String bypass, boolean bypassed) throws Exception {
        StringBuilder list = new StringBuilder();
        for (String one : bypass.split(" ")) {
            list.append(list.isEmpty() ? "" : ", ").append('"').append(one).append('"');
        }
        HostConfig.Upstream upstream = HostConfigJson.parse(
                        "t", "{\"upstream\": {\"proxy\": \"http://p:1\", \"bypass\": [" + list + "]}}")
                .upstream()
                .orElseThrow();
        List<InetAddress> checked = List.of(addresses.split(" ")).stream()
                .map(UpstreamConfigTest::address)
                .toList();
        assertEquals(bypassed, upstream.bypasses(name.equals("-") ? Optional.empty() : Optional.of(name), checked));
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private Path secret(String content) throws Exception {
        Path file = Files.createTempFile(dir, "secret", "");
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
