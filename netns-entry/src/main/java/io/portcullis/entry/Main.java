package io.portcullis.entry;

/** {@code portcullis entry}: the in-namespace listeners (SPEC R20-R21). */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.err.println("portcullis entry: not built yet");
        System.exit(2);
    }
}
