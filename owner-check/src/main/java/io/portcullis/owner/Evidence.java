package io.portcullis.owner;

import io.portcullis.owner.docker.ContainerInfo;
import io.portcullis.owner.kernel.ProcessInfo;
import io.portcullis.owner.kernel.TcpListener;

/** Maps what the kernel and Docker readers found to the public evidence records. */
final class Evidence {
    private Evidence() {}

    static OwnerEvidence.Listener listener(TcpListener l) {
        String address = l.mapped()
                ? "::ffff:" + l.address().getHostAddress()
                : l.address().getHostAddress();
        String family = l.family() == TcpListener.Family.INET ? "inet" : "inet6";
        return new OwnerEvidence.Listener(
                family, address, l.port(), l.uid(), l.inode(), v6Only(l), Devices.name(l.ifindex()));
    }

    /** Null when the reader could not tell (the {@code /proc} fallback). */
    private static Boolean v6Only(TcpListener l) {
        return switch (l.v6Only()) {
            case ON -> true;
            case OFF -> false;
            case UNKNOWN -> null;
        };
    }

    static OwnerEvidence.Process process(ProcessInfo p, long inode) {
        return new OwnerEvidence.Process(p.pid(), p.uid(), p.argv(), p.cwd(), p.exe(), inode);
    }

    static OwnerEvidence.Container container(ContainerInfo c) {
        return new OwnerEvidence.Container(c.id(), c.name(), c.labels());
    }
}
