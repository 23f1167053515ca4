/** JSON lines for every SLF4J logger: the provider that SLF4J's service loader finds (SPEC R40). */
module io.portcullis.log {
    requires static transitive org.jspecify;
    requires transitive org.slf4j;
    requires transitive com.fasterxml.jackson.core;

    exports io.portcullis.log;

    provides org.slf4j.spi.SLF4JServiceProvider with
            io.portcullis.log.JsonLogProvider;
}
