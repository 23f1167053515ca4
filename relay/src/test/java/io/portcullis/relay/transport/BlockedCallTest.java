package io.portcullis.relay.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a task's {@code stat} and {@code syscall} say it is blocked in; lines captured from Linux 6.18. */
class BlockedCallTest {

    @ParameterizedTest(name = "{0} -> {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                "accept4 asleep | 3598 (blk) S 3595 3565 | 288 0x3 0x0 0x0 0x800 0x0 0x64 0x7fc11a8abe80 0x7fc11a9bafa8"
                        + " | false | accept4 3",
                "recvfrom asleep | 3599 (blk) S 3595 3565 | 45 0x4 0x7fc11a0aaeb6 0xa 0x0 0x0 0x0 0x7fc11a0aae60"
                        + " 0x7fc11a9baa3a | false | recvfrom 4",
                "recvmsg asleep | 7 (epollEventLoop) S 1 | 47 0x1f 0x7f 0x0 0x0 0x0 0x0 0x7f 0x7f | false | recvmsg 31",
                "sendmsg asleep | 7 (x) S 1 | 46 0x25 0x7f 0x0 0x0 0x0 0x0 0x7f 0x7f | false | sendmsg 37",
                "a trailing line end | 7 (x) S 1 | 43 0x25 0x0 0x0 0x0 0x0 0x0 0x7f 0x7f\\n | false | accept 37",
                "aarch64 accept4 | 7 (x) S 1 | 242 0x9 0x0 0x0 0x800 0x0 0x0 0x7f 0x7f | true | accept4 9",
                "aarch64 recvfrom | 7 (x) S 1 | 207 0x9 0x0 0x0 0x0 0x0 0x0 0x7f 0x7f | true | recvfrom 9",
                "x86 numbers on aarch64 | 7 (x) S 1 | 288 0x9 0x0 0x0 0x0 0x0 0x0 0x7f 0x7f | true | none",
                "wait4 asleep | 3597 (blk) S 3595 3565 | 61 0xe5c 0x7ffdc3a35db8 0x0 0x0 0x0 0x0 0x7ffd 0x7fc1 | false"
                        + " | none",
                "epoll_wait asleep | 7 (x) S 1 | 232 0x5 0x7f 0x400 0xffffffff 0x0 0x0 0x7f 0x7f | false | none",
                "accept4 running | 7 (x) R 1 | 288 0x3 0x0 0x0 0x800 0x0 0x64 0x7f 0x7f | false | none",
                "accept4 uninterruptible | 7 (x) D 1 | 288 0x3 0x0 0x0 0x800 0x0 0x64 0x7f 0x7f | false | none",
                "running | 7 (x) R 1 | running | false | none",
                "outside any call | 7 (x) S 1 | -1 0x7ffd 0x7fc1 | false | none",
                "a name with a parenthesis | 7 (a) S (b) R 1 | 288 0x3 0x0 0x0 0x800 0x0 0x64 0x7f 0x7f | false | none",
                "a descriptor past int | 7 (x) S 1 | 288 0x1ffffffff 0x0 0x0 0x0 0x0 0x0 0x7f 0x7f | false | none",
                "no arguments | 7 (x) S 1 | 288 | false | none",
                "not a number | 7 (x) S 1 | accept4 0x3 | false | none",
                "an empty stat | '' | 288 0x3 | false | none",
            })
    void aBlockedCallIsASocketCallAsleep(String name, String stat, String syscall, boolean aarch64, String expected) {
        Optional<BlockedCall> blocked = BlockedCall.parse(stat, syscall.replace("\\n", "\n"), aarch64);
        assertEquals(
                expected, blocked.map(call -> call.call() + " " + call.fd()).orElse("none"));
    }
}
