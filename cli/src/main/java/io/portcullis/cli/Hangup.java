package io.portcullis.cli;

import io.portcullis.wire.Posix;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs an action on SIGHUP. The JDK's only signal API is {@code sun.misc.Signal} in
 * {@code jdk.unsupported}; naming it draws a warning that {@code -Werror} turns into a build
 * failure, so it is reached by reflection. Where it is missing, SIGHUP keeps its default (the
 * process ends, and the wall sees it) and {@code POST /reload} still works.
 *
 * <p>A SIGHUP that the process was started with ignored ({@code nohup}) is given back its default
 * first: the JVM installs no handler for an ignored signal, and the log rotation that signals us
 * would then go unheard, silently.
 */
final class Hangup {
    private static final Logger log = LoggerFactory.getLogger(Hangup.class);
    private static final int SIGHUP = 1;

    private Hangup() {}

    /** Installs {@code action} as the SIGHUP handler; false when this JVM cannot. */
    static boolean onHangup(Runnable action) {
        Method handle;
        Object hup;
        Object proxy;
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            hup = signal.getConstructor(String.class).newInstance("HUP");
            InvocationHandler calls = (self, method, args) -> switch (method.getName()) {
                case "handle" -> {
                    action.run();
                    yield null;
                }
                case "hashCode" -> System.identityHashCode(self);
                case "equals" -> self == args[0];
                default -> "SIGHUP handler";
            };
            proxy = Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[] {handler}, calls);
            handle = signal.getMethod("handle", signal, handler);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
        // Everything is ready before the disposition changes: a SIGHUP between the two would end the process.
        boolean wasIgnored = unignore();
        try {
            handle.invoke(null, hup, proxy);
            if (wasIgnored) {
                log.info("SIGHUP was ignored when this process started (nohup?); it is handled from now on");
            }
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            // No handler (-Xrs, no jdk.unsupported): ignored it was, ignored it stays, rather than fatal.
            if (wasIgnored) {
                try {
                    Posix.ignore(SIGHUP);
                } catch (Posix.Failure again) {
                    log.warn("SIGHUP could not be ignored again: {}", again.getMessage());
                }
            }
            return false;
        }
    }

    private static boolean unignore() {
        try {
            return Posix.unignore(SIGHUP);
        } catch (Posix.Failure e) {
            log.warn("SIGHUP's disposition could not be read: {}", e.getMessage());
            return false;
        }
    }
}
