package io.dlock.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

/** picocli converters for the option types of dlock. */
final class Converters {
    private Converters() {
    }

    /** See {@link DurationText#parse(String)}. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return DurationText.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A Redis URI, checked as {@link RedisUris#check(String, String)} does. */
    static final class RedisUriConverter implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            try {
                return RedisUris.check(value, "--redis");
            } catch (CliException e) {
                throw new TypeConversionException(e.getMessage().replaceFirst("^--redis: ", ""));
            }
        }
    }
}
