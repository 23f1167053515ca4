package io.portcullis.world;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A self-signed certificate for the TLS origins, made when the world starts (JDK keytool), valid
 * for the given names and addresses. Clients trust {@link #certificatePem()} (curl {@code --cacert}).
 */
public record TlsMaterial(Path keystore, String storepass, Path certificatePem) {
    private static final String ALIAS = "origin";

    public TlsMaterial {
        Objects.requireNonNull(keystore, "keystore");
        Objects.requireNonNull(certificatePem, "certificatePem");
        if (storepass == null || storepass.length() < 6) {
            throw new IllegalArgumentException("storepass: (expected: at least 6 characters, as keytool requires)");
        }
    }

    public static TlsMaterial create(Path dir, List<String> names, List<InetAddress> addresses) throws IOException {
        if (names.isEmpty() && addresses.isEmpty()) {
            throw new IllegalArgumentException("names and addresses: [] (expected: at least one subject name)");
        }
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        String storepass = HexFormat.of().formatHex(secret);
        Path keystore = dir.resolve("origin.p12");
        Path pem = dir.resolve("origin.pem");
        List<String> san = new ArrayList<>();
        names.forEach(n -> san.add("dns:" + n));
        addresses.forEach(a -> san.add("ip:" + a.getHostAddress()));
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Commands.run(List.of(
                keytool,
                "-genkeypair",
                "-alias",
                ALIAS,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=portcullis world origin",
                "-ext",
                "SAN=" + String.join(",", san),
                "-ext",
                "BC:c=ca:true",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                storepass,
                "-keypass",
                storepass));
        Commands.run(List.of(
                keytool,
                "-exportcert",
                "-rfc",
                "-alias",
                ALIAS,
                "-keystore",
                keystore.toString(),
                "-storepass",
                storepass,
                "-file",
                pem.toString()));
        return new TlsMaterial(keystore, storepass, pem);
    }
}
