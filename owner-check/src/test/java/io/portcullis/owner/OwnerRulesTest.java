package io.portcullis.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.portcullis.owner.OwnerQuery.Source;
import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.kernel.ProcessInfo;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The R31 and R32 rules as tables, without a kernel or Docker. */
class OwnerRulesTest {
    private static final long WALL_PID = 99;
    private static final OwnerConfig CONFIG = new OwnerConfig(
            4100,
            18789,
            List.of(Path.of("/opt/gw/checkout")),
            List.of(
                    new OwnerConfig.Signature(
                            "gateway", Optional.of(Pattern.compile(".*/gateway\\.mjs")), Optional.empty()),
                    new OwnerConfig.Signature(
                            "satellite", Optional.empty(), Optional.of(Pattern.compile("/opt/satellite/bin/.*")))),
            Set.of("studio", "notes"),
            List.of(Path.of("/srv/bundles")),
            Map.of("studio", Set.of("shared-db")),
            OwnerConfig.DEFAULT_DOCKER_ENDPOINT,
            Duration.ofSeconds(1));
    private static final OwnerRules RULES = rules();

    private static OwnerRules rules() {
        WallProcesses wall = new WallProcesses();
        wall.add(WALL_PID);
        return new OwnerRules(CONFIG, wall);
    }

    /** Holders as {@code pid:cwd:exe:argv...}, joined by {@code ;}. */
    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "OWNER   | 10:/srv/addon:/usr/bin/python3:python3:app.py                                 | allow",
                "DEFAULT | 10:/srv/addon:/usr/bin/python3:python3:app.py                                 | owner-default-user",
                "OWNER   | ''                                                                            | owner-unmapped",
                "OWNER   | 10:/tmp:/usr/bin/node:node:/anywhere/gateway.mjs                              | owner-gateway",
                "OWNER   | 10:/tmp:/opt/satellite/bin/sat:sat                                            | owner-gateway",
                "OWNER   | 99:/tmp:/usr/bin/python3:python3                                              | owner-wall",
                "OWNER   | 10:/tmp:/usr/bin/bwrap:bwrap:--unshare-net                                    | owner-wall",
                "OWNER   | 10:/opt/gw/checkout/sub:/usr/bin/python3:python3                             | owner-checkout",
                "OWNER   | 10:/tmp:/opt/gw/checkout/bin/tool:tool                                       | owner-checkout",
                "OWNER   | 10:/tmp:/usr/bin/python3:python3:/opt/gw/checkout/serve.py                   | owner-checkout",
                "OWNER   | 10:/tmp:/usr/bin/python3:python3:--root=/opt/gw/checkout                     | owner-checkout",
                "OWNER   | 10:/tmp:/usr/bin/python3:python3:/opt/gw/checkout-other/x.py                 | allow",
                "OWNER   | 10:/tmp:/usr/bin/python3:python3:/opt/gw/checkout/../elsewhere/x.py          | allow",
                "OWNER   | 10:/srv/addon:/usr/bin/python3:python3;11:/opt/gw/checkout:/usr/bin/node:node | owner-checkout",
                "OWNER   | 99:/opt/gw/checkout:/usr/bin/node:node:/x/gateway.mjs                        | owner-gateway",
                "DEFAULT | 99:/opt/gw/checkout:/usr/bin/python3:python3                                 | owner-wall",
            })
    void theGatewayUsersSocket(Source source, String holders, String expected) {
        List<ProcessInfo> processes = holders.isEmpty()
                ? List.of()
                : Arrays.stream(holders.split(";")).map(OwnerRulesTest::process).toList();
        assertEquals(
                expected,
                RULES.gatewayUser(source, processes).map(r -> r.code().code()).orElse("allow"));
    }

    /** Labels as {@code project|working_dir}; {@code -} for none. */
    @ParameterizedTest(name = "{0} {1} project={2} dir={3} -> {4}")
    @CsvSource({
        "studio, OWNER,   studio,    -,                    allow",
        "studio, DEFAULT, studio,    -,                    allow",
        "studio, OWNER,   notes,     -,                    owner-other-addon",
        "studio, OWNER,   mystery,   -,                    owner-unknown-project",
        "studio, OWNER,   -,         -,                    owner-unlabelled",
        "studio, OWNER,   -,         /srv/bundles/studio,  owner-unlabelled",
        "studio, OWNER,   whatever,  /srv/bundles/studio,  allow",
        "studio, OWNER,   studio,    /srv/bundles/ghost,   owner-unknown-project",
        "studio, OWNER,   studio,    /srv/bundles/notes,   owner-other-addon",
        "studio, OWNER,   studio,    /elsewhere/notes,     allow",
        "studio, OWNER,   shared-db, -,                    allow",
        "studio, DEFAULT, shared-db, -,                    owner-unknown-project",
        "notes,  OWNER,   shared-db, -,                    owner-unknown-project",
        "notes,  OWNER,   studio,    -,                    owner-other-addon",
    })
    void aContainer(String addon, Source source, String project, String workingDir, String expected) {
        Map<String, String> labels = new HashMap<>();
        if (!project.equals("-")) {
            labels.put(ContainerInfo.PROJECT, project);
        }
        if (!workingDir.equals("-")) {
            labels.put(ContainerInfo.WORKING_DIR, workingDir);
        }
        ContainerInfo container = new ContainerInfo("c1", "web", labels, List.of(), Set.of());
        OwnerQuery query = new OwnerQuery(addon, source, InetAddress.getLoopbackAddress(), 8080);
        assertEquals(
                expected,
                RULES.container(query, container).map(r -> r.code().code()).orElse("allow"));
    }

    private static ProcessInfo process(String spec) {
        String[] f = spec.strip().split(":");
        return new ProcessInfo(Long.parseLong(f[0]), 4100, Arrays.asList(f).subList(3, f.length), f[1], f[2]);
    }

    /**
     * Issue 25: for a user who may not ask Docker, root's own service was refused as "Docker is
     * unreachable". Docker matters only when its proxy holds the port. Holders as {@code pid:exe},
     * joined by {@code ;}; "unseen" when they cannot be read.
     */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "70:/usr/bin/python3.12                | owner-root        | held by process 70 (/usr/bin/python3.12), not a port a container publishes (Docker was not needed",
                "71:/usr/bin/docker-proxy              | owner-docker-down | held by Docker's proxy (process 71)",
                "70:/usr/sbin/nginx;72:/usr/libexec/docker/docker-proxy | owner-docker-down | held by Docker's proxy (process 72)",
                "unseen                                | owner-root        | held by a process this relay cannot see; only a port a container publishes passes, and Docker could not be asked",
            })
    void aRootSocketThatDockerCannotBeAskedAboutIsRootsUnlessDockersProxyHoldsIt(
            String holders, String code, String detail) {
        Optional<List<ProcessInfo>> seen = holders.equals("unseen")
                ? Optional.empty()
                : Optional.of(Arrays.stream(holders.split(";"))
                        .map(h -> h.split(":", 2))
                        .map(h -> new ProcessInfo(Long.parseLong(h[0]), 0, List.of(h[1]), "/", h[1]))
                        .toList());

        Refusal refusal = OwnerRules.rootWithoutDocker(seen, "permission denied");

        assertEquals(code, refusal.code().code());
        assertTrue(refusal.detail().contains(detail), refusal.detail());
        assertTrue(refusal.detail().contains("permission denied"), refusal.detail());
    }
}
