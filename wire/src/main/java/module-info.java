/**
 * What the entry and the relay share: the hand-over message, both of its sides, and the system
 * calls (FFM) beneath them and beneath the owner check's reading of the kernel's socket tables, all
 * through one downcall handle. JDK only, so the entry stays small and the engine does not depend on
 * the in-namespace program.
 */
module io.portcullis.wire {
    requires static transitive org.jspecify;

    exports io.portcullis.wire;
}
