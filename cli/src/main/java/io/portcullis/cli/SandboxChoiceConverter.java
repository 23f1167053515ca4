package io.portcullis.cli;

import io.portcullis.launch.Sandbox;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --sandbox} in any case, and a refusal that spells the kinds as the docs do. */
final class SandboxChoiceConverter implements ITypeConverter<Sandbox.Choice> {
    @Override
    public Sandbox.Choice convert(String value) {
        return Sandbox.Choice.named(value)
                .orElseThrow(() -> new TypeConversionException("'" + value + "' (expected: "
                        + Arrays.stream(Sandbox.Choice.values())
                                .map(Object::toString)
                                .collect(Collectors.joining(", "))
                        + ")"));
    }
}
