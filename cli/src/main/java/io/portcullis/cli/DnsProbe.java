package io.portcullis.cli;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One bounded question to one DNS server, for {@code portcullis check --host}: does it answer?
 * The question is {@code invalid. A} (a name that RFC 6761 reserves to be answered NXDOMAIN at
 * once, so it carries nothing out and makes no resolver recurse), asked over UDP from a connected
 * socket, so a closed port is said at once (ICMP) rather than after the timeout.
 */
final class DnsProbe {
    private static final byte[] NAME = {7, 'i', 'n', 'v', 'a', 'l', 'i', 'd', 0};
    private static final String[] RCODES = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};

    private DnsProbe() {}

    /**
     * What a server said.
     *
     * @param answered whether it answered in a way the relay can use (NOERROR or NXDOMAIN)
     */
    record Result(boolean answered, String detail) {}

    static Result ask(InetSocketAddress server, Duration timeout) {
        int id = ThreadLocalRandom.current().nextInt(0x10000);
        long start = System.nanoTime();
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.connect(server);
            socket.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
            byte[] query = query(id);
            socket.send(new DatagramPacket(query, query.length));
            byte[] buffer = new byte[512];
            while (true) {
                DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                socket.receive(packet);
                Optional<Integer> rcode = rcode(buffer, packet.getLength(), id);
                if (rcode.isPresent()) {
                    long millis = (System.nanoTime() - start) / 1_000_000;
                    return judge(rcode.get(), millis);
                }
            }
        } catch (SocketTimeoutException e) {
            return new Result(false, "no answer within " + timeout.toMillis() + " ms (dns.timeoutMillis)");
        } catch (PortUnreachableException e) {
            return new Result(false, "nothing answers at its port (ICMP port unreachable)");
        } catch (IOException | RuntimeException e) {
            return new Result(false, "it could not be reached: " + e.getMessage());
        }
    }

    /** A server that answered NOERROR or NXDOMAIN serves the relay; any other code fails its lookups too. Pure. */
    static Result judge(int rcode, long millis) {
        String name = rcode < RCODES.length ? RCODES[rcode] : "rcode " + rcode;
        boolean usable = rcode == 0 || rcode == 3;
        return new Result(
                usable,
                "answered " + name + " for invalid. in " + millis + " ms"
                        + (usable ? "" : ": it would fail the relay's lookups too"));
    }

    /** The question {@code invalid. IN A} with recursion desired. */
    static byte[] query(int id) {
        ByteBuffer query = ByteBuffer.allocate(12 + NAME.length + 4);
        query.putShort((short) id).putShort((short) 0x0100).putShort((short) 1);
        query.putShort((short) 0).putShort((short) 0).putShort((short) 0);
        query.put(NAME).putShort((short) 1).putShort((short) 1);
        return query.array();
    }

    /** The response code of an answer to question {@code id}; empty for anything else. Pure. */
    static Optional<Integer> rcode(byte[] packet, int length, int id) {
        if (length < 12) {
            return Optional.empty();
        }
        ByteBuffer header = ByteBuffer.wrap(packet, 0, length);
        int answerId = Short.toUnsignedInt(header.getShort());
        int flags = Short.toUnsignedInt(header.getShort());
        boolean response = (flags & 0x8000) != 0;
        return answerId == id && response ? Optional.of(flags & 0xF) : Optional.empty();
    }
}
