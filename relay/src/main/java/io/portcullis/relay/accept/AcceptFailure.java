package io.portcullis.relay.accept;

import io.netty.channel.unix.Errors;
import java.util.Set;

/**
 * What a failed accept on a handed-over socket means (SPEC R4), by the error's number. Pure.
 *
 * <ul>
 *   <li>{@link #CONNECTION}: one connection's failure, the next accept may work: interrupted,
 *       nothing to accept after all, a connection aborted or failing with a network error before
 *       it was taken (Linux passes those on from accept, and asks callers to retry), a firewall's
 *       refusal of that one connection;
 *   <li>{@link #RESOURCES}: the relay is short of descriptors, buffers or memory; the socket is
 *       good and is asked again later, not at once (a level-triggered socket with a connection
 *       waiting would turn its event loop until something frees a descriptor);
 *   <li>{@link #BROKEN}: anything else, an error without a number included: the socket no
 *       longer accepts (EINVAL once it stopped listening) and is closed.
 * </ul>
 */
enum AcceptFailure {
    CONNECTION,
    RESOURCES,
    BROKEN;

    // Linux's numbers, the same on x86_64 and aarch64.
    private static final Set<Integer> ONE_CONNECTION = Set.of(
            1, // EPERM
            4, // EINTR
            11, // EAGAIN
            64, // ENONET
            71, // EPROTO
            92, // ENOPROTOOPT
            95, // EOPNOTSUPP
            100, // ENETDOWN
            101, // ENETUNREACH
            103, // ECONNABORTED
            110, // ETIMEDOUT
            112, // EHOSTDOWN
            113); // EHOSTUNREACH

    private static final Set<Integer> SHORT_OF = Set.of(
            12, // ENOMEM
            23, // ENFILE
            24, // EMFILE
            105); // ENOBUFS

    /** The meaning of error number {@code errno} (positive) from accept. */
    static AcceptFailure of(int errno) {
        if (ONE_CONNECTION.contains(errno)) {
            return CONNECTION;
        }
        return SHORT_OF.contains(errno) ? RESOURCES : BROKEN;
    }

    /** The meaning of what Netty's accept threw: a native error by its number, anything else broken. */
    static AcceptFailure of(Throwable cause) {
        return cause instanceof Errors.NativeIoException e ? of(Math.abs(e.expectedErr())) : BROKEN;
    }
}
