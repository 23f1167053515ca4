package io.portcullis.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A network namespace as the kernel names it: the device and inode of its namespace file. */
record NetworkNamespace(long device, long inode) {
    /** The namespace that the file at {@code path} names ({@code /proc/PID/ns/net}, {@code /run/netns/NAME}). */
    static NetworkNamespace of(Path path) throws IOException {
        return new NetworkNamespace(
                ((Number) Files.getAttribute(path, "unix:dev")).longValue(),
                ((Number) Files.getAttribute(path, "unix:ino")).longValue());
    }

    /** The namespace of the namespace descriptor {@code fd}, open in this process. */
    static NetworkNamespace ofDescriptor(int fd) throws IOException {
        return of(Path.of("/proc/self/fd", Integer.toString(fd)));
    }

    /** This process's own. */
    static NetworkNamespace own() throws IOException {
        return of(Path.of("/proc/self/ns/net"));
    }

    /** As the kernel writes it in {@code /proc/PID/ns/net}: {@code net:[4026531840]}. */
    @Override
    public String toString() {
        return "net:[" + inode + "]";
    }
}
