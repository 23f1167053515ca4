package io.portcullis.it.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.portcullis.it.world.Run;
import io.portcullis.world.OriginMain;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24: spawns outlive the daemon under a real systemd (257, Debian 13 booted in a container,
 * {@link DebianSystem}). The .deb's unit runs the daemon; spawns are opened over the control socket
 * with the real entry in network namespaces of their own (systemd's {@code PrivateNetwork=}, the
 * program {@code sleep}); a test origin runs inside the system as the gateway's user. After
 * {@code systemctl kill -s KILL} and after {@code systemctl restart}, every spawn answers a CONNECT
 * through its own proxy port again, with its policy and its door token; a closed spawn's sockets
 * are gone from the descriptor store; descriptors without a state, and a state without its
 * descriptors, are closed, removed and logged.
 */
@Timeout(value = 2400, unit = java.util.concurrent.TimeUnit.SECONDS)
class SystemdCrashTest {
    @RegisterExtension
    static final Installation installed = Installation.create();

    private static final String NAME =
            "portcullis-systemd-test-" + ProcessHandle.current().pid();
    private static final String JAVA = "/usr/lib/portcullis/runtime/bin/java";
    private static final String UNIT = "portcullis-daemon";
    private static final String STATE = "/var/lib/portcullis/";
    private static final int ORIGIN_PORT = 8080;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static DebianSystem system;
    private static String world;

    @BeforeAll
    static void boot() throws Exception {
        assumeTrue(DebianSystem.docker("info").exit() == 0, "no Docker engine answers (./run-tests starts one)");
        DebianSystem.ensureImage();
        system = DebianSystem.boot(NAME);
        Run install = system.install(installed.deb());
        assertEquals(0, install.exit(), install.toString());
        // The control client and the origins, on the distribution's own runtime.
        Path classes = Path.of(ControlCall.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        assertEquals(
                0, system.exec("mkdir -p /var/tmp/it/io/portcullis/it/dist").exit());
        system.copy(classes.resolve("io/portcullis/it/dist/ControlCall.class"), "/var/tmp/it/io/portcullis/it/dist/");
        Path origins = code(OriginMain.class);
        world = "/var/tmp/" + (Files.isDirectory(origins) ? "world" : "world.jar");
        system.copy(origins, world);
        // The origin runs as the gateway's user: the owner check lets a spawn's listed entry reach it.
        Run origin = system.exec("useradd --system --no-create-home origin && install -d -o origin /var/tmp/records"
                + " && printf '{\"owner\": {\"gatewayUid\": %s}}' \"$(id -u origin)\" >/etc/portcullis/host.json"
                + " && systemctl restart " + UNIT
                + " && systemd-run --unit=origin --uid=origin --working-directory=/var/tmp/records"
                + " bash -c 'sleep infinity | exec " + JAVA + " -cp " + world + " " + OriginMain.class.getName()
                + " --name inside --dir /var/tmp/records --http " + ORIGIN_PORT + "'");
        assertEquals(0, origin.exit(), origin.toString());
        Run listening = system.await("exec 3<>/dev/tcp/127.0.0.1/" + ORIGIN_PORT);
        assertEquals(0, listening.exit(), journal("origin"));
    }

    @AfterAll
    static void remove() throws Exception {
        if (system != null) {
            system.close();
        }
    }

    @Test
    void everySpawnServesAgainAfterAKillAndARestartAndAClosedSpawnLeavesTheStore() throws Exception {
        String door = "\"door\": {\"port\": 3001, \"routes\": [{\"method\": \"GET\", \"path\": \"/x\"}],"
                + " \"tokenFile\": \"/run/portcullis/kill-b.token\"}";
        open("kill-a", "");
        open("kill-b", door);
        open("kill-c", "");
        for (String id : List.of("kill-a", "kill-b", "kill-c")) {
            assertAnswers(id);
            awaitStored(id + "/proxy/127.0.0.1/39080");
            assertTrue(stored().contains(id + "/dns/127.0.0.1/53"), stored().toString());
        }
        assertEquals(
                "600 portcullis\n",
                system.exec("stat -c '%a %U' " + STATE + "kill-a.json").out());
        String token = system.exec("cat /run/portcullis/kill-b.token").out();
        assertEquals(64, token.length(), token);

        assertEquals("204", control("DELETE", "/spawns/kill-c", "").status());
        assertTrue(stored().stream().noneMatch(name -> name.startsWith("kill-c/")), stored().toString());
        assertFalse(exists(STATE + "kill-c.json"));
        assertFalse(answers("kill-c"), "a closed spawn's sockets are closed: nothing holds them");

        String before = mainPid();
        Run killed = system.exec("systemctl kill -s KILL " + UNIT);
        assertEquals(0, killed.exit(), killed.toString());
        // Made while the daemon is dead or starting: it waits in the stored socket's queue, then is served.
        assertAnswers("kill-a");
        awaitRestartedFrom(before);
        assertServing(List.of("kill-a", "kill-b"));
        assertAnswers("kill-b");
        assertEquals(token, system.exec("cat /run/portcullis/kill-b.token").out(), "the door token is the same");
        assertEquals("404", control("GET", "/spawns/kill-c", "").status());
        assertTrue(journal(UNIT).contains("spawn restored from the service's descriptor store"), journal(UNIT));

        before = mainPid();
        Run restart = system.exec("systemctl restart " + UNIT);
        assertEquals(0, restart.exit(), restart.toString());
        awaitRestartedFrom(before);
        assertServing(List.of("kill-a", "kill-b"));
        assertAnswers("kill-a");
        assertAnswers("kill-b");

        close("kill-a");
        close("kill-b");
        assertTrue(stored().stream().noneMatch(name -> name.startsWith("kill-")), stored().toString());
        assertFalse(exists("/run/portcullis/kill-b.token"), "a closed spawn's door token is removed");
    }

    @Test
    void descriptorsWithoutAStateAndAStateWithoutDescriptorsAreClosedRemovedAndLogged() throws Exception {
        open("part-d", "");
        open("part-e", "");
        assertAnswers("part-d");
        assertAnswers("part-e");
        awaitStored("part-d/proxy/127.0.0.1/39080");
        awaitStored("part-e/proxy/127.0.0.1/39080");
        Run tamper = system.exec("rm " + STATE + "part-e.json && sed 's/\"part-d\"/\"part-f\"/' " + STATE
                + "part-d.json >" + STATE + "part-f.json");
        assertEquals(0, tamper.exit(), tamper.toString());

        String before = mainPid();
        assertEquals(0, system.exec("systemctl kill -s KILL " + UNIT).exit());
        awaitRestartedFrom(before);

        assertServing(List.of("part-d"));
        assertAnswers("part-d");
        assertEquals("404", control("GET", "/spawns/part-e", "").status());
        assertEquals("404", control("GET", "/spawns/part-f", "").status());
        assertFalse(answers("part-e"), "its sockets are closed everywhere");
        assertTrue(stored().stream().noneMatch(name -> name.startsWith("part-e/")), stored().toString());
        assertFalse(exists(STATE + "part-e.json") || exists(STATE + "part-f.json"));
        String journal = journal(UNIT);
        assertTrue(journal.contains("spawn part-e cannot be restored: its "), journal);
        assertTrue(journal.contains("spawn part-f cannot be restored: the descriptor store lacks part-f/"), journal);
        close("part-d");
    }

    /** Opens spawn {@code id} (the origin's port listed, and {@code more} fields) and starts its entry. */
    private static void open(String id, String more) throws Exception {
        String policy = "{\"id\": \"" + id + "\", \"hosts\": [{\"target\": \"127.0.0.1:" + ORIGIN_PORT
                + "\", \"scheme\": \"tcp\"}]" + (more.isEmpty() ? "" : ", " + more) + "}";
        Answer opened = control("POST", "/spawns", policy);
        assertEquals("201", opened.status(), opened.toString());
        JsonNode spawn = opened.json();
        List<String> entry = new ArrayList<>(List.of(
                "systemd-run",
                "--unit=spawn-" + id,
                "--property=PrivateNetwork=yes",
                "--setenv=PORTCULLIS_HANDOFF_KEY=" + spawn.get("handoffKey").asText(),
                "/usr/bin/portcullis",
                "entry",
                "--relay",
                spawn.get("socket").asText(),
                "--proxy-port",
                spawn.get("proxyPort").asText(),
                "--forward",
                String.valueOf(ORIGIN_PORT),
                "--dns"));
        if (spawn.get("door").isInt()) {
            entry.addAll(List.of("--door", spawn.get("door").asText()));
        }
        entry.addAll(List.of("--", "sleep", "infinity"));
        Run started = system.exec(String.join(" ", entry));
        assertEquals(0, started.exit(), started.toString());
        assertServing(List.of(id));
    }

    private static void close(String id) throws Exception {
        assertEquals("204", control("DELETE", "/spawns/" + id, "").status());
        system.exec("systemctl stop spawn-" + id);
    }

    /** Waits (at most about a minute) until each of {@code ids} serves. */
    private static void assertServing(List<String> ids) throws Exception {
        for (String id : ids) {
            String state = "";
            for (int i = 0; i < 40 && !state.equals("serving"); i++) {
                Answer shown = control("GET", "/spawns/" + id, "");
                state = shown.status().equals("200") ? shown.json().get("state").asText() : shown.status();
                if (!state.equals("serving")) {
                    Thread.sleep(500);
                }
            }
            assertEquals("serving", state, id + ": " + journal(UNIT) + journal("spawn-" + id));
        }
    }

    private static void assertAnswers(String id) throws Exception {
        Run run = connect(id);
        assertTrue(
                run.out().contains("HTTP/1.1 200 Connection established")
                        && run.out().contains("{\"origin\":\"inside\""),
                id + ": " + run);
    }

    private static boolean answers(String id) throws Exception {
        return connect(id).out().contains("{\"origin\":\"inside\"");
    }

    /** A CONNECT to the origin through the spawn's own proxy port, from inside its namespace. */
    private static Run connect(String id) throws Exception {
        String script = "exec 3<>/dev/tcp/127.0.0.1/39080 || exit 3;"
                + " printf 'CONNECT 127.0.0.1:" + ORIGIN_PORT + " HTTP/1.1\\r\\nHost: 127.0.0.1:" + ORIGIN_PORT
                + "\\r\\n\\r\\n' >&3;"
                + " IFS= read -r status <&3; echo \"$status\";"
                + " while IFS= read -r line <&3 && [ \"$line\" != $'\\r' ]; do :; done;"
                + " printf 'GET /hello HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' >&3;"
                + " cat <&3";
        return system.exec("pid=$(systemctl show -P MainPID spawn-" + id + ") && nsenter -t \"$pid\" -n timeout 60"
                + " bash -c " + quote(script));
    }

    /** The names in the daemon's descriptor store. */
    private static List<String> stored() throws Exception {
        Run run = system.exec("systemd-analyze fdstore " + UNIT + " --json=short");
        assertEquals(0, run.exit(), run.toString());
        List<String> names = new ArrayList<>();
        JSON.readTree(run.out()).forEach(entry -> names.add(entry.get("fdname").asText()));
        return names;
    }

    /** Waits (at most 10 s) until the store holds {@code name}: a spawn is kept just after it serves. */
    private static void awaitStored(String name) throws Exception {
        for (int i = 0; i < 40 && !stored().contains(name); i++) {
            Thread.sleep(250);
        }
        assertTrue(stored().contains(name), name + " in " + stored());
    }

    private static String mainPid() throws Exception {
        return system.exec("systemctl show -P MainPID " + UNIT).out().strip();
    }

    /** Waits until systemd runs the daemon again, with another pid, and it said it is ready. */
    private static void awaitRestartedFrom(String before) throws Exception {
        Run run = system.await("[ \"$(systemctl show -P ActiveState " + UNIT + ")\" = active ] && pid=$(systemctl show"
                + " -P MainPID " + UNIT + ") && [ \"$pid\" != 0 ] && [ \"$pid\" != " + before + " ]");
        assertEquals(0, run.exit(), journal(UNIT));
        assertNotEquals(before, mainPid());
    }

    private static boolean exists(String path) throws Exception {
        return system.exec("test -e " + path).exit() == 0;
    }

    private static String journal(String unit) throws Exception {
        return system.exec("journalctl --no-pager -o cat -u " + unit).out();
    }

    /** One answer of the control socket: its status and its body. */
    private record Answer(String status, String body) {
        JsonNode json() throws Exception {
            return JSON.readTree(body);
        }
    }

    private static Answer control(String method, String path, String body) throws Exception {
        Run run = system.exec("runuser -u portcullis -- " + JAVA + " -Xshare:auto -XX:TieredStopAtLevel=1 -cp"
                + " /var/tmp/it " + ControlCall.class.getName() + " /run/portcullis/control.sock " + method + " "
                + path + (body.isEmpty() ? "" : " " + quote(body)));
        assertEquals(0, run.exit(), run.toString());
        int line = run.out().indexOf('\n');
        return new Answer(run.out().substring(0, line), run.out().substring(line + 1));
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    private static Path code(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
