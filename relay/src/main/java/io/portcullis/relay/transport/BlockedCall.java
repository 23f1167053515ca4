package io.portcullis.relay.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A thread asleep in a system call that takes a socket's descriptor first and waits on it while
 * the socket is blocking: accept, a receive, a send, a read or a write. Read from the thread's
 * {@code stat} (its state) and {@code syscall} (the call's number and arguments) under
 * {@code /proc/self/task/<tid>}; an event loop found so is blocked on that descriptor.
 *
 * @param call the system call's name, as in {@code accept4}
 * @param fd its first argument, the descriptor
 */
record BlockedCall(String call, int fd) {

    /** The calls, with their numbers on x86_64 and aarch64. */
    enum Call {
        READ(0, 63),
        WRITE(1, 64),
        READV(19, 65),
        WRITEV(20, 66),
        ACCEPT(43, 202),
        SENDTO(44, 206),
        RECVFROM(45, 207),
        SENDMSG(46, 211),
        RECVMSG(47, 212),
        ACCEPT4(288, 242),
        RECVMMSG(299, 243),
        SENDMMSG(307, 269);

        private final int x86;
        private final int arm;

        Call(int x86, int arm) {
            this.x86 = x86;
            this.arm = arm;
        }

        static Optional<Call> of(long number, boolean aarch64) {
            for (Call call : values()) {
                if ((aarch64 ? call.arm : call.x86) == number) {
                    return Optional.of(call);
                }
            }
            return Optional.empty();
        }
    }

    static final boolean AARCH64 = System.getProperty("os.arch").equals("aarch64");

    /** What the thread whose task directory is {@code task} is blocked in, if it is asleep in one of the calls. */
    static Optional<BlockedCall> read(Path task) throws IOException {
        String syscall = Files.readString(task.resolve("syscall"));
        String stat = Files.readString(task.resolve("stat"));
        return parse(stat, syscall, AARCH64);
    }

    /**
     * Pure: the call that {@code syscall} (a task's {@code syscall} file: the call's number, its six
     * arguments in hex, the stack and instruction pointers; {@code running}; or {@code -1} and the
     * pointers outside any call) names, when {@code stat} (the task's {@code stat} line) says it
     * sleeps interruptibly ({@code S}) and the call is one of {@link Call}'s.
     */
    static Optional<BlockedCall> parse(String stat, String syscall, boolean aarch64) {
        int name = stat.lastIndexOf(')');
        if (name < 0 || name + 2 >= stat.length() || stat.charAt(name + 2) != 'S') {
            return Optional.empty();
        }
        String[] words = syscall.strip().split(" ");
        if (words.length < 2) {
            return Optional.empty();
        }
        try {
            long fd = Long.parseUnsignedLong(hex(words[1]), 16);
            return Call.of(Long.parseLong(words[0]), aarch64)
                    .filter(call -> fd <= Integer.MAX_VALUE)
                    .map(call -> new BlockedCall(call.name().toLowerCase(java.util.Locale.ROOT), (int) fd));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String hex(String word) {
        return word.startsWith("0x") ? word.substring(2) : word;
    }
}
