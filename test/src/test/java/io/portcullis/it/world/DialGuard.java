package io.portcullis.it.world;

import io.portcullis.world.World;
import java.net.InetSocketAddress;

/** Every dial a test helper makes passes here: loopback and the world's own addresses only. */
public final class DialGuard {
    private final World world;

    DialGuard(World world) {
        this.world = world;
    }

    /** Returns {@code target} when it may be dialed; throws otherwise. Never resolves a name. */
    public InetSocketAddress check(InetSocketAddress target) {
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("dial: " + target + " (expected: an address, not a name)");
        }
        if (!target.getAddress().isLoopbackAddress() && !world.owns(target.getAddress())) {
            throw new IllegalStateException(
                    "dial: " + target + " (expected: loopback or an address of the test world; refusing to dial out)");
        }
        return target;
    }
}
