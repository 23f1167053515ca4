import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The entry's options, read from its own {@code --help}, added to the CLI's {@code entry} command
 * for its manual page and the completion. The entry is the netns-entry jar's program (JDK only,
 * no picocli): its help text is the one list of what it takes.
 */
final class EntryOptions {
    /** {@code  --name LABEL   description}, or a flag without a label; continuation lines are indented deeper. */
    private static final Pattern OPTION = Pattern.compile("^  (--[a-z][a-z-]*)(?: ([A-Z][A-Z:]*))?\\s{2,}(\\S.*)$");

    private static final Pattern CONTINUATION = Pattern.compile("^\\s{10,}(\\S.*)$");

    /** What picocli's standard help options already give every command. */
    private static final List<String> STANDARD = List.of("--help", "--version");

    private EntryOptions() {}

    static void addTo(CommandSpec entry, String help) {
        List<String[]> options = parse(help);
        if (options.stream().noneMatch(o -> o[0].equals("--relay"))) {
            throw new IllegalArgumentException("entry --help: no --relay in\n" + help);
        }
        for (String[] option : options) {
            if (STANDARD.contains(option[0])) {
                continue;
            }
            OptionSpec.Builder builder = OptionSpec.builder(option[0]).description(sentence(option[2]));
            if (option[1] == null) {
                builder.arity("0").type(boolean.class);
            } else {
                builder.paramLabel(option[1]).arity("1").type(String.class);
                if (option[2].contains("(repeatable")) {
                    builder.type(List.class).auxiliaryTypes(String.class);
                }
            }
            entry.addOption(builder.build());
        }
        entry.addPositional(PositionalParamSpec.builder()
                .paramLabel("CMD")
                .arity("0..*")
                .type(List.class)
                .auxiliaryTypes(String.class)
                .description("After --: the command the entry becomes (execve), with only fds 0-2 and the proxy"
                        + " variables.")
                .build());
    }

    /** Each option as {name, label or null, description}. */
    private static List<String[]> parse(String help) {
        List<String[]> options = new ArrayList<>();
        String[] last = null;
        for (String line : help.lines().toList()) {
            Matcher option = OPTION.matcher(line);
            Matcher more = CONTINUATION.matcher(line);
            if (option.matches()) {
                last = new String[] {option.group(1), option.group(2), option.group(3)};
                options.add(last);
            } else if (more.matches() && last != null) {
                last[2] = last[2] + " " + more.group(1);
            } else {
                last = null;
            }
        }
        return options;
    }

    /** The help's lower-case fragment as a sentence, as picocli's own descriptions are written. */
    private static String sentence(String text) {
        String sentence = Character.toUpperCase(text.charAt(0)) + text.substring(1);
        return sentence.endsWith(".") || sentence.endsWith(")") ? sentence : sentence + ".";
    }
}
