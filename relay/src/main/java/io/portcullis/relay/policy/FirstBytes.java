package io.portcullis.relay.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * What an allowed CONNECT tunnel must carry first (SPEC R23): anything, or a TLS ClientHello
 * whose server name is exactly the CONNECT host's, none for an IP literal. It holds on the
 * internet shape and for listed {@code https} entries; a listed {@code tcp} entry carries any bytes.
 *
 * @param clientHello whether the first bytes must be a TLS ClientHello
 * @param serverName the server name it must carry; empty: it must carry none
 */
public record FirstBytes(boolean clientHello, Optional<String> serverName) {
    /** Any bytes at all. */
    public static final FirstBytes ANY = new FirstBytes(false, Optional.empty());

    public FirstBytes {
        Objects.requireNonNull(serverName, "serverName");
        if (!clientHello && serverName.isPresent()) {
            throw new IllegalArgumentException(
                    "serverName: " + serverName.get() + " (expected: none without a ClientHello)");
        }
    }

    /** A ClientHello for {@code target}: its name, or no name for an IP literal. */
    public static FirstBytes clientHelloFor(Target target) {
        return new FirstBytes(true, target.isName() ? Optional.of(target.host()) : Optional.empty());
    }

    /**
     * Whether a ClientHello with {@code sent} as its server name (empty: none) is the one wanted.
     * Names compare ASCII case-insensitively, and one final dot on either side is ignored: a
     * ClientHello carries the A-label form, as the CONNECT host is kept.
     */
    public boolean accepts(Optional<String> sent) {
        if (serverName.isEmpty() || sent.isEmpty()) {
            return serverName.isEmpty() && sent.isEmpty();
        }
        return bare(serverName.get()).equalsIgnoreCase(bare(sent.get()));
    }

    private static String bare(String name) {
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }
}
