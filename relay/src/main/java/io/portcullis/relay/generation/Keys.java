package io.portcullis.relay.generation;

import io.portcullis.owner.OwnerConfig;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;

/** What makes a shared part of two generations the same ({@link Shared}). */
final class Keys {
    /** The files a resolver reads when it is made. */
    static final Path HOSTS = Path.of("/etc/hosts");

    static final Path RESOLV_CONF = Path.of("/etc/resolv.conf");

    private Keys() {}

    /**
     * A resolver's key: the DNS settings, and the last change of the files the resolver reads when it
     * is made ({@code /etc/hosts}; {@code /etc/resolv.conf} when no server is named), and how long
     * the check of a local DNS server's holder is cached (R25), so a reload
     * after either changed builds a new one, as every reload used to.
     */
    record ResolverKey(HostConfig.Dns dns, Duration holderWindow, List<Object> files) {
        static ResolverKey of(HostConfig.Dns dns, Duration holderWindow) throws IOException {
            return new ResolverKey(
                    dns,
                    holderWindow,
                    dns.servers().isEmpty() ? List.of(changed(HOSTS), changed(RESOLV_CONF)) : List.of(changed(HOSTS)));
        }

        private static Object changed(Path file) throws IOException {
            try {
                return Files.getLastModifiedTime(file).toMillis() + "/" + Files.size(file);
            } catch (NoSuchFileException e) {
                return "none";
            }
        }
    }

    /**
     * This host's own addresses' key: the own names and addresses over one resolver; the host
     * configuration to build from is carried, not compared.
     */
    record OwnKey(HostConfig host, Resolver resolver, ScheduledExecutorService loop) {
        @Override
        public boolean equals(Object other) {
            return other instanceof OwnKey key
                    && key.host.ownNames().equals(host.ownNames())
                    && key.host.ownAddresses().equals(host.ownAddresses())
                    && key.resolver == resolver;
        }

        @Override
        public int hashCode() {
            return Objects.hash(host.ownNames(), host.ownAddresses(), System.identityHashCode(resolver));
        }
    }

    /**
     * An owner check's key: every field of the owner part, the signatures by their patterns' text and
     * flags (a {@link Pattern} equals only itself); the configuration to build from is carried, not
     * compared.
     */
    record OwnerKey(OwnerConfig config, List<Object> fields) {
        static OwnerKey of(OwnerConfig owner) {
            List<Object> signatures = owner.signatures().stream()
                    .map(signature -> (Object) List.of(signature.name(), text(signature.argv()), text(signature.exe())))
                    .toList();
            return new OwnerKey(
                    owner,
                    List.of(
                            owner.gatewayUid(),
                            owner.gatewayPort(),
                            owner.roots(),
                            signatures,
                            owner.addons(),
                            owner.bundleDirs(),
                            owner.exceptions(),
                            owner.dockerEndpoint(),
                            owner.cacheWindow()));
        }

        private static String text(Optional<Pattern> pattern) {
            return pattern.map(p -> p.flags() + "/" + p.pattern()).orElse("");
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof OwnerKey key && key.fields.equals(fields);
        }

        @Override
        public int hashCode() {
            return fields.hashCode();
        }
    }
}
