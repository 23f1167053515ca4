package io.portcullis.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;

/**
 * Help and version without building the command line (decision D75): picocli makes its model by
 * reflection over every option at each start, which is most of what {@code portcullis --help}
 * took. The build renders each command's help from that model once ({@link #main}, in both of
 * picocli's colour modes) into the jar; a request for help or the version is answered from there,
 * the colour mode chosen as picocli chooses it. MainTest holds the texts to the model.
 */
final class Usage {
    /** Where the build puts the texts, beside this class. */
    private static final String FOLDER = "usage/";
    /** The top level's name among the texts. */
    private static final String TOP = "portcullis";
    /** A request for the version, which no command's name can be. */
    private static final String VERSION = "--version";
    /** picocli's own command, whose help is not asked for. */
    private static final String HELP = "help";

    private Usage() {}

    /**
     * Answers {@code args} on {@code out} when they only ask for help or the version ({@code --help},
     * {@code -h}, {@code help}, none; {@code COMMAND --help}, {@code help COMMAND}; {@code
     * --version}, {@code -V}, {@code COMMAND --version}); false for anything else, and when this
     * build has no text for it (the command line answers then).
     */
    static boolean answer(String[] args, PrintStream out) {
        // No lambda, stream, pattern or string concatenation (an invokedynamic) on this path: each
        // would cost a start more than the answer.
        Optional<String> request = request(List.of(args));
        Optional<byte[]> text = request.isPresent() ? text(request.get()) : Optional.empty();
        if (text.isEmpty()) {
            return false;
        }
        out.write(text.get(), 0, text.get().length);
        out.flush();
        return true;
    }

    /** {@link #VERSION}, or the command whose help {@code args} ask for ({@code portcullis}: the top level). */
    static Optional<String> request(List<String> args) {
        if (System.getProperty("picocli.usage.width") != null) {
            return Optional.empty();
        }
        return switch (args.size()) {
            case 0 -> Optional.of(TOP);
            case 1 ->
                switch (args.get(0)) {
                    case "--help", "-h", HELP -> Optional.of(TOP);
                    case "--version", "-V" -> Optional.of(VERSION);
                    default -> Optional.empty();
                };
            case 2 ->
                switch (args.get(1)) {
                    case "--help", "-h" -> command(args.get(0));
                    case "--version", "-V" ->
                        command(args.get(0)).isPresent() ? Optional.of(VERSION) : Optional.empty();
                    default -> args.get(0).equals(HELP) ? command(args.get(1)) : Optional.empty();
                };
            default -> Optional.empty();
        };
    }

    /** A subcommand's name, when this build has its help. */
    private static Optional<String> command(String name) {
        boolean word = !name.isEmpty() && !name.equals(TOP);
        for (int i = 0; i < name.length(); i++) {
            word &= name.charAt(i) >= 'a' && name.charAt(i) <= 'z';
        }
        return word && Usage.class.getResource(file(name, false)) != null ? Optional.of(name) : Optional.empty();
    }

    private static Optional<byte[]> text(String name) {
        if (name.equals(VERSION)) {
            return Optional.of(Main.VERSION.concat(System.lineSeparator()).getBytes(StandardCharsets.UTF_8));
        }
        try (InputStream in = Usage.class.getResourceAsStream(file(name, Ansi.AUTO.enabled()))) {
            return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static String file(String name, boolean ansi) {
        return FOLDER.concat(name).concat(ansi ? ".ansi" : ".txt");
    }

    /** The help of the top level and of each command, as picocli renders it in {@code ansi}'s mode. */
    static Map<String, String> rendered(Ansi ansi) {
        CommandLine top = Main.commandLine();
        Map<String, String> texts = new TreeMap<>();
        texts.put(TOP, render(top, ansi));
        top.getSubcommands().forEach((name, command) -> {
            if (!name.equals(HELP)) {
                texts.put(name, render(command, ansi));
            }
        });
        return texts;
    }

    private static String render(CommandLine command, Ansi ansi) {
        StringWriter text = new StringWriter();
        command.usage(new PrintWriter(text, true), ansi);
        return text.toString();
    }

    /** The build's step: {@code Usage CLASSES} writes CLASSES/io/portcullis/cli/usage/NAME.txt and NAME.ansi. */
    static void main(String[] args) throws IOException {
        Path folder = Path.of(args[0], Usage.class.getPackageName().replace('.', '/'), FOLDER);
        Files.createDirectories(folder);
        for (Ansi ansi : List.of(Ansi.OFF, Ansi.ON)) {
            for (Map.Entry<String, String> text : rendered(ansi).entrySet()) {
                Files.writeString(
                        folder.resolve(
                                Path.of(file(text.getKey(), ansi == Ansi.ON)).getFileName()),
                        text.getValue());
            }
        }
    }
}
