package io.portcullis.log;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/** The SLF4J 2 provider that {@link java.util.ServiceLoader} finds: every logger writes to {@link JsonLog}. */
public final class JsonLogProvider implements SLF4JServiceProvider {
    /** Made by SLF4J's service loader. */
    public JsonLogProvider() {}

    private final IMarkerFactory markers = new BasicMarkerFactory();
    private final MDCAdapter mdc = new NOPMDCAdapter();
    private final ILoggerFactory loggers = new ILoggerFactory() {
        private final ConcurrentMap<String, Logger> byName = new ConcurrentHashMap<>();

        @Override
        public Logger getLogger(String name) {
            return byName.computeIfAbsent(name, JsonLogger::new);
        }
    };

    @Override
    public ILoggerFactory getLoggerFactory() {
        return loggers;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    @Override
    public void initialize() {
        // Nothing to read: the level is set by the command line (JsonLog.level).
    }
}
