package io.portcullis.relay.tunnel;

import io.netty.buffer.ByteBuf;
import io.portcullis.relay.policy.DenyCode;
import java.util.HashSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The shape a ClientHello must have before its server name is believed (SPEC R23), read from its
 * body (after the handshake header) by RFC 8446 section 4.1.2 and RFC 6066 section 3: a legacy
 * version 3.1-3.3, 32 random bytes, a session id of at most 32 bytes, an even, non-empty list of
 * cipher suites, at least one compression method, then extensions that fill the rest exactly, each
 * of one type at most once. A {@code server_name} extension holds a list that fills it exactly, of
 * exactly one non-empty {@code host_name}. Pure; never moves the buffer's indexes.
 *
 * <p>A ClientHello that breaks the shape, or repeats an extension ({@code server_name} included), is
 * {@code not-tls}: no TLS server takes it, so it is not a ClientHello a server would answer. One
 * whose {@code server_name} list names more than one server, or a server that is not a host name,
 * is {@code sni-mismatch}: it names something besides the CONNECT host, and a server or a middlebox
 * that reads another entry than the relay does would be sent elsewhere.
 */
final class ClientHelloShape {
    private static final int SERVER_NAME = 0;
    private static final int HOST_NAME = 0;

    /** Why a ClientHello is refused: the code and one line for the operator. */
    record Flaw(DenyCode code, String detail) {
        Flaw {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(detail, "detail");
        }
    }

    private ClientHelloShape() {}

    /** What is wrong with the ClientHello whose body is {@code body}; empty when nothing is. */
    static Optional<Flaw> flaw(ByteBuf body) {
        int at = body.readerIndex();
        int end = body.writerIndex();
        if (end - at < 2 + 32 + 1) {
            return notTls("shorter than a ClientHello's fixed fields");
        }
        if (body.getUnsignedByte(at) != 3 || body.getUnsignedByte(at + 1) < 1 || body.getUnsignedByte(at + 1) > 3) {
            return notTls("legacy version " + body.getUnsignedByte(at) + "." + body.getUnsignedByte(at + 1));
        }
        at += 2 + 32;
        int session = body.getUnsignedByte(at);
        at += 1 + session;
        if (session > 32 || at + 2 > end) {
            return notTls("a session id of " + session + " bytes");
        }
        int suites = body.getUnsignedShort(at);
        at += 2 + suites;
        if (suites < 2 || suites % 2 != 0 || at + 1 > end) {
            return notTls("a cipher suite list of " + suites + " bytes");
        }
        int compression = body.getUnsignedByte(at);
        at += 1 + compression;
        if (compression < 1 || at > end) {
            return notTls("a compression method list of " + compression + " bytes");
        }
        if (at == end) {
            return Optional.empty();
        }
        if (at + 2 > end || at + 2 + body.getUnsignedShort(at) != end) {
            return notTls("extensions that do not fill the ClientHello exactly");
        }
        return extensions(body, at + 2, end);
    }

    private static Optional<Flaw> extensions(ByteBuf body, int at, int end) {
        Set<Integer> seen = new HashSet<>();
        int serverNames = -1;
        int serverNamesEnd = -1;
        while (at < end) {
            if (at + 4 > end) {
                return notTls("an extension header cut short");
            }
            int type = body.getUnsignedShort(at);
            int length = body.getUnsignedShort(at + 2);
            int data = at + 4;
            if (data + length > end) {
                return notTls("extension " + type + " longer than the extensions");
            }
            if (!seen.add(type)) {
                return notTls("extension " + type + " appears twice");
            }
            if (type == SERVER_NAME) {
                serverNames = data;
                serverNamesEnd = data + length;
            }
            at = data + length;
        }
        return serverNames < 0 ? Optional.empty() : serverNames(body, serverNames, serverNamesEnd);
    }

    /** The server_name extension's data: a list that fills it exactly, of exactly one host name. */
    private static Optional<Flaw> serverNames(ByteBuf body, int at, int end) {
        if (at + 2 > end || at + 2 + body.getUnsignedShort(at) != end) {
            return notTls("a server_name list that does not fill its extension exactly");
        }
        at += 2;
        if (at == end) {
            return notTls("an empty server_name list");
        }
        int names = 0;
        int firstType = -1;
        while (at < end) {
            if (at + 3 > end) {
                return notTls("a server_name entry cut short");
            }
            int type = body.getUnsignedByte(at);
            int length = body.getUnsignedShort(at + 1);
            if (length == 0 || at + 3 + length > end) {
                return notTls("a server_name entry of " + length + " bytes in a list of " + (end - at) + " left");
            }
            if (names++ == 0) {
                firstType = type;
            }
            at += 3 + length;
        }
        if (names > 1) {
            return Optional.of(new Flaw(
                    DenyCode.SNI_MISMATCH, "the ClientHello names " + names + " servers (expected: one host name)"));
        }
        if (firstType != HOST_NAME) {
            return Optional.of(new Flaw(
                    DenyCode.SNI_MISMATCH,
                    "the ClientHello names a server of name type " + firstType + " (expected: a host name)"));
        }
        return Optional.empty();
    }

    private static Optional<Flaw> notTls(String why) {
        return Optional.of(new Flaw(DenyCode.NOT_TLS, "not shaped like a ClientHello: " + why));
    }
}
