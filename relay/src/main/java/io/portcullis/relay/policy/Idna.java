package io.portcullis.relay.policy;

import com.ibm.icu.lang.UCharacter;
import com.ibm.icu.lang.UCharacterCategory;
import com.ibm.icu.text.IDNA;
import com.ibm.icu.text.Normalizer2;
import java.util.EnumSet;
import java.util.Set;

/**
 * Names to ASCII under UTS #46 nontransitional processing (SPEC R7, IDNA2008), with ICU4J:
 * {@code faß} is {@code xn--fa-hia}, never {@code fass}. {@link Target} then checks the labels.
 */
final class Idna {
    private Idna() {}

    /**
     * What browsers use (the WHATWG URL standard's domain to ASCII): nontransitional, bidi and
     * joiner rules checked; STD3 off so that {@code _} stays a name character ({@link Target}'s
     * label check still allows only letters, digits, {@code -} and {@code _}).
     */
    private static final IDNA UTS46 =
            IDNA.getUTS46Instance(IDNA.NONTRANSITIONAL_TO_ASCII | IDNA.CHECK_BIDI | IDNA.CHECK_CONTEXTJ);

    /** The UTS #46 mapping alone, to find the code points it would delete. */
    private static final Normalizer2 UTS46_MAPPING = Normalizer2.getInstance(null, "uts46", Normalizer2.Mode.COMPOSE);

    /**
     * UTS #46 errors that {@link Target}'s label check reports in its own words ({@code HYPHEN_3_4} is not
     * one: like browsers, {@code r3---sn.example} is a valid name).
     */
    private static final Set<IDNA.Error> CHECKED_BELOW = EnumSet.of(
            IDNA.Error.EMPTY_LABEL,
            IDNA.Error.LABEL_TOO_LONG,
            IDNA.Error.DOMAIN_NAME_TOO_LONG,
            IDNA.Error.LEADING_HYPHEN,
            IDNA.Error.TRAILING_HYPHEN,
            IDNA.Error.HYPHEN_3_4);

    /**
     * UTS #46 nontransitional to ASCII (R7). Every name goes through it, ASCII ones too, so that an
     * {@code xn--} label that does not decode to a valid name is refused rather than kept as a
     * second spelling. A code point the mapping deletes (zero-width space, BOM, soft hyphen) is
     * refused: one name, one spelling, and no invisible characters in what the log shows.
     */
    static String toAscii(String text, String host) {
        for (int i = 0; i < host.length(); ) {
            int c = host.codePointAt(i);
            if (c >= 0x80 && UTS46_MAPPING.normalize(Character.toString(c)).isEmpty()) {
                throw Target.bad(text, "host:port with a name without invisible code points (" + codePoint(c) + ")");
            }
            i += Character.charCount(c);
        }
        IDNA.Info info = new IDNA.Info();
        StringBuilder ascii = UTS46.nameToASCII(host, new StringBuilder(host.length() + 8), info);
        refuseErrors(text, info);
        if (ascii.indexOf("xn--") >= 0) {
            IDNA.Info back = new IDNA.Info();
            String unicode = UTS46.nameToUnicode(ascii, new StringBuilder(host.length()), back)
                    .toString();
            refuseErrors(text, back);
            letterDigits(text, unicode);
        }
        return ascii.toString();
    }

    private static void refuseErrors(String text, IDNA.Info info) {
        Set<IDNA.Error> errors = EnumSet.noneOf(IDNA.Error.class);
        errors.addAll(info.getErrors());
        errors.removeAll(CHECKED_BELOW);
        if (!errors.isEmpty()) {
            throw Target.bad(text, "host:port with a valid internationalised name (UTS #46: " + errors + ")");
        }
    }

    /**
     * IDNA2008's rule (RFC 5892, LetterDigits) that UTS #46 relaxes: beyond ASCII, a name holds
     * letters, marks and decimal digits only, and the joiners that CONTEXTJ has checked. So
     * symbols and punctuation ({@code ¿}, the fraction slash U+2044, a BOM read as ISO-8859-1) are
     * refused, in Unicode and in {@code xn--} spelling alike.
     */
    private static void letterDigits(String text, String unicode) {
        for (int i = 0; i < unicode.length(); ) {
            int c = unicode.codePointAt(i);
            if (c >= 0x80 && c != 0x200c && c != 0x200d) {
                int type = UCharacter.getType(c);
                boolean letterDigit = type == UCharacterCategory.LOWERCASE_LETTER
                        || type == UCharacterCategory.UPPERCASE_LETTER
                        || type == UCharacterCategory.OTHER_LETTER
                        || type == UCharacterCategory.MODIFIER_LETTER
                        || type == UCharacterCategory.NON_SPACING_MARK
                        || type == UCharacterCategory.COMBINING_SPACING_MARK
                        || type == UCharacterCategory.DECIMAL_DIGIT_NUMBER;
                if (!letterDigit) {
                    throw Target.bad(
                            text, "host:port with a name of letters, marks and digits (IDNA2008), not " + codePoint(c));
                }
            }
            i += Character.charCount(c);
        }
    }

    private static String codePoint(int c) {
        return String.format("U+%04X", c);
    }
}
