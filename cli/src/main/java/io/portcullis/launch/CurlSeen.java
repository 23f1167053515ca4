package io.portcullis.launch;

/**
 * What curl reported for one request, from its write-out line
 * {@code %{http_connect}|%{http_code}|%{exitcode}|%{errormsg}}.
 *
 * @param connect the proxy's answer to CONNECT, 0 when none
 * @param http the final HTTP status, 0 when none
 * @param exit curl's exit code
 * @param error curl's error message, empty when none
 */
record CurlSeen(int connect, int http, int exit, String error) {
    /** The {@code -w} format that {@link #parse} reads; one line per request, errors included. */
    static final String WRITE_OUT = "%{http_connect}|%{http_code}|%{exitcode}|%{errormsg}\\n";

    /** The line curl printed, or a result saying that it printed none. */
    static CurlSeen parse(String line) {
        if (line == null) {
            return new CurlSeen(0, 0, -1, "curl printed nothing");
        }
        String[] parts = line.split("\\|", 4);
        if (parts.length < 3) {
            return new CurlSeen(0, 0, -1, "curl printed: " + line);
        }
        try {
            return new CurlSeen(
                    Integer.parseInt(parts[0]),
                    Integer.parseInt(parts[1]),
                    Integer.parseInt(parts[2]),
                    parts.length > 3 ? parts[3].strip() : "");
        } catch (NumberFormatException e) {
            return new CurlSeen(0, 0, -1, "curl printed: " + line);
        }
    }

    /** A few words: the status curl got, or its error. */
    String describe() {
        if (connect != 0 && connect != 200) {
            return "CONNECT answered " + connect;
        }
        if (http != 0) {
            return "HTTP " + http;
        }
        return error.isEmpty() ? "curl exit " + exit : error;
    }
}
