package io.portcullis.relay.judge;

import io.netty.channel.EventLoop;
import io.portcullis.owner.OwnerCheck;
import io.portcullis.owner.OwnerChecks;
import io.portcullis.owner.PortHolders;
import io.portcullis.relay.dnsclient.LocalServerCheck;
import io.portcullis.relay.dnsclient.NettyResolver;
import io.portcullis.relay.policy.HostConfig;
import io.portcullis.relay.resolve.Resolver;
import io.portcullis.relay.rules.OwnAddresses;
import io.portcullis.relay.rules.Rules;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Builds the policy's judge one way, for the relay's generations and for the commands that judge
 * without a relay ({@code portcullis check} and {@code owner}): a resolver over the host's DNS
 * servers, each server on this host asked only while a trusted uid holds its port (SPEC R25); this
 * host's own addresses (R15), their names waited for a bounded time; and the judge over the
 * rules, a resolver, those addresses and an owner check.
 */
public final class PolicyJudges {
    private PolicyJudges() {}

    /**
     * How long a command that runs no relay waits for this host's own names, and for one decision,
     * in milliseconds: a lookup of each own name and two more, each within the DNS timeout, and 5 s
     * (the owner check's own deadline).
     */
    public static long ownAddressBound(HostConfig host) {
        return host.dns().timeout().toMillis() * (host.ownNames().size() + 2) + 5000;
    }

    /**
     * A resolver of {@code dns} on {@code loop}. A server on this host is asked only while one of
     * {@code dns.uids} holds its port ({@code holders}, by default this process's {@code relayUid});
     * whether a server is on this host is read from {@code own}.
     */
    public static NettyResolver resolver(
            EventLoop loop, HostConfig.Dns dns, PortHolders holders, Supplier<OwnAddresses> own, int relayUid) {
        return new NettyResolver(
                loop, dns, new LocalServerCheck(LocalServerCheck.DNS_SERVER, holders, dns.uids(), own, relayUid));
    }

    /**
     * This host's own addresses for {@code host}, their names resolved by {@code resolver}, the
     * interfaces read before this returns and the names waited for at most {@code wait}: past it
     * they count as unresolved, which the book says, until their lookups end. The book is given to
     * {@code publish} first, before its names resolve (it holds the interface addresses by then): a
     * resolver that guards a DNS server on this host asks it whether the server is this host's own,
     * for these very lookups.
     *
     * @throws IOException when the addresses cannot be read
     */
    public static OwnAddressBook ownAddresses(
            HostConfig host, Resolver resolver, Consumer<OwnAddressBook> publish, Duration wait) throws IOException {
        OwnAddressBook own = new OwnAddressBook(host, OwnAddressBook.Interfaces.jdk(), resolver);
        publish.accept(own);
        try {
            own.refresh().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            own.sayPending(wait);
        } catch (ExecutionException e) {
            own.close();
            throw new IOException("this host's own addresses could not be read: " + e, e);
        } catch (InterruptedException e) {
            own.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading this host's own addresses", e);
        }
        return own;
    }

    /** The policy's judge for {@code host}: its rules, DNS by {@code resolver}, {@code own} and {@code owner}. */
    public static PolicyJudge judge(HostConfig host, Resolver resolver, Supplier<OwnAddresses> own, OwnerCheck owner) {
        return new PolicyJudge(new Rules(host), resolver, own, owner);
    }

    /**
     * The judge of a command that runs no relay, as the relay builds its own: a resolver on {@code
     * loop}, this host's own addresses read once, and {@code owner}. Closing it closes what it
     * made, not {@code owner} nor {@code loop}.
     *
     * @throws IOException when this host's own addresses cannot be read
     */
    public static Standalone standalone(HostConfig host, EventLoop loop, OwnerCheck owner) throws IOException {
        AtomicReference<Supplier<OwnAddresses>> newest = new AtomicReference<>(() -> OwnAddresses.NONE);
        NettyResolver resolver = resolver(
                loop,
                host.dns(),
                OwnerChecks.portHolders(host.owner().cacheWindow()),
                () -> newest.get().get(),
                LocalServerCheck.processUid());
        try {
            OwnAddressBook own = ownAddresses(host, resolver, newest::set, Duration.ofMillis(ownAddressBound(host)));
            return new Standalone(host, judge(host, resolver, own, owner), own, resolver);
        } catch (IOException | RuntimeException e) {
            resolver.close();
            throw e;
        }
    }

    /** A judge with the resolver and own addresses it was built over; see {@link #standalone}. */
    public static final class Standalone implements AutoCloseable {
        private final HostConfig host;
        private final PolicyJudge judge;
        private final OwnAddressBook own;
        private final NettyResolver resolver;

        private Standalone(HostConfig host, PolicyJudge judge, OwnAddressBook own, NettyResolver resolver) {
            this.host = host;
            this.judge = judge;
            this.own = own;
            this.resolver = resolver;
        }

        public PolicyJudge judge() {
            return judge;
        }

        /** The rules the judge decides by. */
        public Rules rules() {
            return new Rules(host);
        }

        /** This host's own addresses, as read when it was built. */
        public OwnAddresses ownAddresses() {
            return own.get();
        }

        /** How long one decision may take, in milliseconds: as long as the first read of the own addresses. */
        public long decisionBound() {
            return ownAddressBound(host);
        }

        @Override
        public void close() {
            own.close();
            resolver.close();
        }
    }
}
