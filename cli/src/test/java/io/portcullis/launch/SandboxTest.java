package io.portcullis.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
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

    /**
     * The readiness file is opened as descriptor 3 before the sandbox starts; the sandbox has new
     * user, network, pid and IPC namespaces and a /proc of its own, and its pid 1 is a shell that
     * runs the entry (which becomes the command) and exits with its status; under unshare, from a
     * user and mount namespace nested in the sandbox's, and under bubblewrap with one capability.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "BWRAP, bwrap --unshare-net --unshare-user --unshare-pid --unshare-ipc --as-pid-1 --die-with-parent"
                + " --cap-drop ALL --cap-add CAP_NET_BIND_SERVICE --dev-bind / / --proc /proc --",
        "UNSHARE, unshare --fork --kill-child --user --map-root-user --net --pid --mount-proc --ipc --"
    })
    void theWrappedCommandRunsUnderTheSandboxsOwnPidOne(Sandbox sandbox, String start) {
        List<String> argv = sandbox.wrap(
                List.of("entry", "--", "curl", "x y"), Path.of("/tmp/ready"), Optional.empty(), Sandbox.Scratch.NONE);
        assertEquals(
                List.of("/bin/sh", "-c", "exec 3>>\"$1\" || exit 125; shift; exec \"$@\"", "sh", "/tmp/ready"),
                argv.subList(0, 5));
        assertEquals(start, String.join(" ", argv.subList(5, 5 + start.split(" ").length)));
        assertEquals(List.of("sh", "entry", "--", "curl", "x y"), argv.subList(argv.size() - 5, argv.size()));
        String init = sandbox == Sandbox.UNSHARE
                ? "exec unshare --user --map-root-user --mount -- /bin/sh -c '" + Sandbox.INIT + "' sh \"$@\""
                : Sandbox.INIT;
        assertTrue(argv.get(argv.size() - 6).endsWith(init), argv.toString());
        assertEquals("/bin/sh -c", String.join(" ", argv.subList(argv.size() - 8, argv.size() - 6)));
    }

    /**
     * Issue 26 (#1): an empty tmpfs over each fresh directory, and the kept ones bound back at their
     * own paths; unshare holds a kept directory open across the mount over its parent.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "BWRAP | --perms 1777 --tmpfs /tmp --perms 1777 --tmpfs /dev/shm --bind /tmp/portcullis-1"
                        + " /tmp/portcullis-1 --",
                "UNSHARE | exec 4<\"$1\" || exit 125; mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs"
                        + " '/tmp' || exit 125; mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs '/dev/shm' || exit 125;"
                        + " mkdir -p \"$1\" && mount --no-canonicalize --bind /proc/self/fd/4"
                        + " \"$1\" || exit 125; exec 4<&-; shift 1; cd \"$(pwd)\""
            })
    void aFreshTmpAndTheKeptDirectoriesInIt(Sandbox sandbox, String expected) {
        Sandbox.Scratch scratch = new Sandbox.Scratch(
                List.of(Path.of("/tmp"), Path.of("/dev/shm")), List.of(Path.of("/tmp/portcullis-1")));
        List<String> argv = sandbox.wrap(List.of("entry"), Path.of("/r"), Optional.empty(), scratch);
        assertTrue(String.join(" ", argv).contains(expected), argv.toString());
        // The entry comes last; unshare's script takes the kept folder as its argument.
        assertEquals(
                sandbox == Sandbox.UNSHARE ? List.of("sh", "/tmp/portcullis-1", "entry") : List.of("sh", "entry"),
                argv.subList(argv.size() - (sandbox == Sandbox.UNSHARE ? 3 : 2), argv.size()));
    }

    /**
     * Issue 26 (a review of its fixes, finding 3): the unshare form mounts everything, and lets the
     * namespace bind below 1024, before its pid 1 enters the nested user and mount namespace where
     * those mounts are locked; the network namespace stays the sandbox's, the one the relay compares
     * the entry's sockets with.
     */
    @Test
    void theUnshareFormMountsEverythingBeforeItLocksThem() {
        Sandbox.Resolver resolver = new Sandbox.Resolver(
                List.of(new Sandbox.Resolver.Bind(Path.of("/tmp/r.conf"), Path.of("/etc/resolv.conf"))),
                List.of(Path.of("/run/nscd")));
        Sandbox.Scratch scratch = new Sandbox.Scratch(
                List.of(Path.of("/tmp"), Path.of("/dev/shm")), List.of(Path.of("/tmp/portcullis-1")));
        List<String> argv = Sandbox.UNSHARE.wrap(List.of("entry"), Path.of("/r"), Optional.of(resolver), scratch);
        String script = argv.get(argv.size() - 4);
        int locked = script.indexOf(Sandbox.LOCKED);
        assertTrue(locked > 0 && script.indexOf(Sandbox.LOCKED, locked + 1) < 0, script);
        String mounts = "mount (--bind|-t tmpfs|--no-canonicalize)";
        assertEquals(5, script.substring(0, locked).split(mounts, -1).length - 1, script);
        assertEquals(1, script.substring(locked).split(mounts, -1).length, script);
        assertTrue(
                script.startsWith("ip link set lo up && echo 0 >/proc/sys/net/ipv4/ip_unprivileged_port_start"
                        + " || exit 125; "),
                script);
        assertEquals(List.of("sh", "/tmp/portcullis-1", "entry"), argv.subList(argv.size() - 3, argv.size()));
    }

    @Test
    void aKeptDirectoryLiesInAFreshOne() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new Sandbox.Scratch(List.of(Path.of("/tmp")), List.of(Path.of("/var/spawn"))));
        assertEquals("kept: /var/spawn (expected: a directory under one of [/tmp])", e.getMessage());
    }

    /**
     * Issue 26 (#1): /tmp is the sandbox's own unless shared, /dev/shm always where the host has one;
     * of the folders the command and the entry need, those that lie in them are kept, each folder
     * before what it holds, and one that a kept folder holds is not kept again.
     */
    @ParameterizedTest(name = "shared {0}, shm {1}, shown {2} -> {3} keeping {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                "false | true | /tmp/portcullis-1 /opt/portcullis /home/me /usr/bin | /tmp /dev/shm | /tmp/portcullis-1",
                "true | true | /tmp/portcullis-1 /opt/portcullis | /dev/shm | ",
                "false | false | /run/spawns/portcullis-1 /tmp/jdk /tmp/checkout | /tmp | /tmp/checkout /tmp/jdk",
                "false | false | /tmp/i/spawns/portcullis-1 /tmp/i/lib/runtime /tmp/i /tmp/i/bin | /tmp | /tmp/i",
                "false | true | /dev/shm/x /tmp/x/../y /tmp/y /tmp /dev/shm | /tmp /dev/shm | /tmp/y /dev/shm/x",
            })
    void theScratchIsTmpAndShmWithWhatIsNeededInThem(
            boolean shared, boolean shm, String shown, String fresh, String kept) {
        Sandbox.Scratch scratch = Launch.scratch(
                shared, shm, Stream.of(shown.split(" ")).map(Path::of).toList());
        assertEquals(
                fresh,
                String.join(" ", scratch.fresh().stream().map(Path::toString).toList()));
        assertEquals(
                kept == null ? "" : kept,
                String.join(" ", scratch.kept().stream().map(Path::toString).toList()));
    }

    @Test
    void theCommandNeedsItsWorkingDirectoryAndItsPath() {
        assertEquals(
                List.of(Path.of("/tmp/work"), Path.of("/usr/bin"), Path.of("/tmp/venv/bin")),
                Launch.commandFolders(Path.of("/tmp/work"), Optional.of("/usr/bin:relative/bin::.:/tmp/venv/bin")));
        assertEquals(List.of(Path.of("/home/me")), Launch.commandFolders(Path.of("/home/me"), Optional.empty()));
    }

    @Test
    void theUnshareFormKeepsAtMostFiveFoldersAndSaysWhatElseWorks() {
        List<Path> six = Stream.of("a", "b", "c", "d", "e", "f")
                .map(n -> Path.of("/tmp", n))
                .toList();
        Sandbox.Scratch scratch = new Sandbox.Scratch(List.of(Path.of("/tmp")), six);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> Sandbox.UNSHARE.wrap(List.of("entry"), Path.of("/r"), Optional.empty(), scratch));
        assertTrue(e.getMessage().contains("(expected: bubblewrap (--sandbox bwrap), or --share-tmp)"), e.getMessage());
        List<String> bwrap = Sandbox.BWRAP.wrap(List.of("entry"), Path.of("/r"), Optional.empty(), scratch);
        assertEquals(6, bwrap.stream().filter("--bind"::equals).count(), "bubblewrap binds any number");
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
                " ",
                sandbox.wrap(
                        List.of("entry"),
                        Path.of("/tmp/ready"),
                        Optional.of(resolver),
                        new Sandbox.Scratch(List.of(Path.of("/tmp")), List.of())));
        assertTrue(argv.contains(expected), argv);
        // The resolver's files are bound from /tmp before a tmpfs hides it (bubblewrap binds from the host's).
        if (sandbox == Sandbox.UNSHARE) {
            assertTrue(argv.indexOf("'/etc/nsswitch.conf'") < argv.indexOf("tmpfs '/tmp'"), argv);
        }
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
