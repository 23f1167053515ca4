import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * A native zsh completion function ({@code #compdef portcullis}, for a folder of {@code $fpath})
 * from the picocli model: every command with its description, every option of each with its
 * description, and its value: files for a path, the choices for an enumeration or a list of
 * candidates, a command after {@code --}. picocli writes bash only; its script loaded through
 * {@code bashcompinit} would complete without descriptions and without zsh's own file and command
 * completion (decision D72).
 */
final class ZshCompletion {
    private ZshCompletion() {}

    static String script(CommandLine cli) {
        StringBuilder out = new StringBuilder();
        out.append("#compdef ").append(cli.getCommandName()).append('\n');
        out.append("# zsh completion for portcullis: its commands, every option of each and their values.\n");
        out.append("# Written from the command line's own model by packaging/docgen (scripts/dist.sh).\n\n");
        Map<String, CommandLine> commands = cli.getSubcommands();
        for (Map.Entry<String, CommandLine> command : commands.entrySet()) {
            out.append("_portcullis_").append(function(command.getKey())).append("() {\n");
            if (command.getValue().getCommandSpec().helpCommand()) {
                out.append("  _arguments -S \\\n    ").append(commandChoice(commands)).append('\n');
            } else {
                out.append(arguments(command.getValue().getCommandSpec(), List.of())).append('\n');
            }
            out.append("}\n\n");
        }
        out.append("_portcullis() {\n");
        out.append("  local curcontext=$curcontext state state_descr line ret=1\n");
        out.append("  typeset -A opt_args\n");
        out.append(arguments(cli.getCommandSpec(), List.of("'1:command:->command'", "'*::argument:->argument'")))
                .append(" && ret=0\n");
        out.append("  case $state in\n");
        out.append("    command)\n      local -a commands=(\n");
        for (Map.Entry<String, CommandLine> command : commands.entrySet()) {
            out.append("        ")
                    .append(quote(command.getKey().replace(":", "\\:") + ":"
                            + summary(command.getValue().getCommandSpec())))
                    .append('\n');
        }
        out.append("      )\n      _describe -t commands 'portcullis command' commands && ret=0\n      ;;\n");
        out.append("    argument)\n      curcontext=${curcontext%:*:*}:portcullis-$words[1]:\n");
        out.append("      case $words[1] in\n");
        for (String name : commands.keySet()) {
            out.append("        ").append(name).append(") _portcullis_").append(function(name)).append(" && ret=0 ;;\n");
        }
        out.append("      esac\n      ;;\n  esac\n  return ret\n}\n\n_portcullis \"$@\"\n");
        return out.toString();
    }

    /** {@code _arguments} with every visible option and positional parameter of {@code spec}, then {@code more}. */
    private static String arguments(CommandSpec spec, List<String> more) {
        List<String> specs = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            if (!option.hidden()) {
                specs.add(option(option));
            }
        }
        if (more.isEmpty()) {
            for (PositionalParamSpec positional : spec.positionalParameters()) {
                if (!positional.hidden()) {
                    specs.add(positional(positional));
                }
            }
        }
        specs.addAll(more);
        return "  _arguments -C -S \\\n    " + String.join(" \\\n    ", specs);
    }

    private static String option(OptionSpec option) {
        List<String> names = List.of(option.names());
        boolean flag = option.arity().max() == 0;
        String head = option.isMultiValue() ? "*" : "(" + String.join(" ", names) + ")";
        String tail = "[" + escapeBrackets(firstSentence(option.description())) + "]"
                + (flag ? "" : ":" + message(option.paramLabel()) + ":" + action(option));
        String equals = flag ? "" : "=";
        if (names.size() == 1) {
            return quote(head + names.getFirst() + equals + tail);
        }
        return quote(head)
                + names.stream().map(n -> n + equals).collect(Collectors.joining(",", "{", "}"))
                + quote(tail);
    }

    private static String positional(PositionalParamSpec positional) {
        String label = message(positional.paramLabel());
        if (positional.paramLabel().equals("CMD")) {
            return "'*::command:_normal'";
        }
        String action = action(positional);
        return quote((positional.isMultiValue() ? "*:" : ":") + label + ":" + action);
    }

    /** What completes the value: files, folders, a fixed choice, or nothing (the label is shown). */
    private static String action(ArgSpec arg) {
        Iterable<String> candidates = arg.completionCandidates();
        if (candidates != null) {
            List<String> choices =
                    StreamSupport.stream(candidates.spliterator(), false).toList();
            return "(" + String.join(" ", choices) + ")";
        }
        if (Path.class.isAssignableFrom(arg.type()) || java.io.File.class.isAssignableFrom(arg.type())) {
            return arg.paramLabel().equals("PARENT") ? "_files -/" : "_files";
        }
        return arg.paramLabel().equals("FILE") || arg.paramLabel().equals("PATH") ? "_files" : " ";
    }

    private static String commandChoice(Map<String, CommandLine> commands) {
        List<String> names = commands.keySet().stream()
                .filter(n -> !commands.get(n).getCommandSpec().helpCommand())
                .toList();
        return "'1:command:(" + String.join(" ", names) + ")'";
    }

    private static String function(String command) {
        return command.replace('-', '_');
    }

    private static String message(String label) {
        return label.replace(":", "\\:");
    }

    /** A command's one-line summary: its header, else the first clause of its description. */
    private static String summary(CommandSpec command) {
        String[] header = command.usageMessage().header();
        String text = firstSentence(header.length > 0 ? header : command.usageMessage().description());
        if (text.length() <= 60) {
            return text;
        }
        int cut = 60;
        for (String boundary : List.of(": ", " (", ", ")) {
            int at = text.indexOf(boundary, 20);
            if (at > 0 && at < cut) {
                cut = at;
            }
        }
        return text.substring(0, cut);
    }

    /** The first sentence of a picocli description, on one line. */
    static String firstSentence(String[] description) {
        String text = String.join(" ", description)
                .replace("%n", " ")
                .replaceAll("\\s+", " ")
                .strip();
        int end = text.indexOf(". ");
        return end < 0 ? text.replaceAll("\\.$", "") : text.substring(0, end);
    }

    private static String escapeBrackets(String text) {
        return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]");
    }

    /** {@code text} in single quotes for zsh. */
    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
