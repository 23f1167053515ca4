package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SandboxTest {

    @ParameterizedTest(name = "{0} with [{1}] -> {2}")
    @CsvSource({
        "AUTO, bwrap unshare, BWRAP",
        "AUTO, unshare, UNSHARE",
        "BWRAP, bwrap unshare, BWRAP",
        "UNSHARE, bwrap unshare, UNSHARE",
        "AUTO, '', missing",
        "BWRAP, unshare, missing",
        "UNSHARE, bwrap, missing",
    })
    void theChoiceResolvesToAnInstalledSandbox(Sandbox.Choice choice, String installed, String expected) {
        Set<String> programs = Set.of(installed.split(" "));
        Executables executables = programs::contains;
        if (expected.equals("missing")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> choice.resolve(executables));
            assertTrue(e.getMessage().contains("is not installed"), e.getMessage());
        } else {
            assertEquals(Sandbox.valueOf(expected), choice.resolve(executables));
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "BWRAP, bwrap --unshare-net --unshare-user --die-with-parent",
        "UNSHARE, unshare --fork --kill-child --user --map-root-user --net"
    })
    void theWrappedCommandComesLastAfterTheReadinessFile(Sandbox sandbox, String start) {
        List<String> argv = sandbox.wrap(List.of("entry", "--", "curl", "x y"), Path.of("/tmp/ready"));
        assertEquals(start, String.join(" ", argv.subList(0, start.split(" ").length)));
        assertEquals(
                List.of("sh", "/tmp/ready", "entry", "--", "curl", "x y"), argv.subList(argv.size() - 6, argv.size()));
        assertTrue(argv.get(argv.size() - 7).contains("3>>\"$ready\""), argv.toString());
    }

    /** The resolver files are mounted and the resolving daemons' directories hidden, inside only (R24). */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "BWRAP, --ro-bind /tmp/r.conf /etc/resolv.conf --ro-bind /tmp/n.conf /etc/nsswitch.conf --tmpfs /run/nscd",
        "UNSHARE, mount --bind -o ro '/tmp/r.conf' '/etc/resolv.conf' || exit 125; mount --bind -o ro '/tmp/n.conf' "
                + "'/etc/nsswitch.conf' || exit 125; mount -t tmpfs tmpfs '/run/nscd' || exit 125;"
    })
    void theResolverIsMountedInsideOnly(Sandbox sandbox, String expected) {
        Sandbox.Resolver resolver = new Sandbox.Resolver(
                List.of(
                        new Sandbox.Resolver.Bind(Path.of("/tmp/r.conf"), Path.of("/etc/resolv.conf")),
                        new Sandbox.Resolver.Bind(Path.of("/tmp/n.conf"), Path.of("/etc/nsswitch.conf"))),
                List.of(Path.of("/run/nscd")));
        String argv = String.join(
                " ", sandbox.wrap(List.of("entry"), Path.of("/tmp/ready"), java.util.Optional.of(resolver)));
        assertTrue(argv.contains(expected), argv);
        assertEquals(sandbox == Sandbox.UNSHARE, argv.contains(" --mount "), argv);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "passwd: files systemd\\nhosts: files mdns4_minimal [NOTFOUND=return] resolve dns myhostname\\nnetworks: files"
                        + " | passwd: files systemd\\nhosts: files dns\\nnetworks: files",
                "passwd: files | passwd: files\\nhosts: files dns",
                "  hosts:   resolve [!UNAVAIL=return] dns | hosts: files dns",
            })
    void theSwitchResolvesHostsFromFilesAndDnsOnly(String host, String expected) {
        String own = Launch.nsswitch(host.replace("\\n", "\n"));
        assertEquals(expected.replace("\\n", "\n") + "\n", own.substring(own.indexOf('\n') + 1));
    }
}
