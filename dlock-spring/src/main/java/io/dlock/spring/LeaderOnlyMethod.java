package io.dlock.spring;

import io.dlock.LeaderTerm;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@link LeaderOnly} method, checked and parsed once when its proxy is created: the election's name, the
 * parameters that receive the term and its epoch, and the value a skipped call returns. Immutable, thread-safe.
 */
final class LeaderOnlyMethod {
    private static final String LABEL = "@LeaderOnly";

    private final String description;
    private final String election;
    private final int[] termParameters;
    private final int[] epochParameters;
    private final Object skipValue;

    private LeaderOnlyMethod(String description, String election, int[] termParameters, int[] epochParameters,
                             Object skipValue) {
        this.description = description;
        this.election = election;
        this.termParameters = termParameters;
        this.epochParameters = epochParameters;
        this.skipValue = skipValue;
    }

    /**
     * @throws IllegalStateException when the name is blank, the method's result may outlive it, or a
     *                               {@link LeaderEpoch} parameter is not a {@code long}; the message names the method
     */
    static LeaderOnlyMethod parse(Method method, LeaderOnly annotation, StringValueResolver placeholders) {
        MethodAttributes attributes = new MethodAttributes(LABEL, method, placeholders);
        String election = attributes.resolve("value", annotation.value()).trim();
        if (election.isEmpty()) {
            throw attributes.invalid("the election's name is blank; name the election, the same in every instance");
        }
        String deferred = DeferredResults.declared(method);
        if (deferred != null) {
            throw attributes.invalid("returns " + deferred + ", whose work may go on after the method returned, "
                    + "where the end of the term no longer reaches it. Only synchronous methods are supported: do "
                    + "the work inside the method, or run it with LeaderElection.runWhileLeader");
        }
        List<Integer> terms = new ArrayList<>();
        List<Integer> epochs = new ArrayList<>();
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length; i++) {
            Class<?> type = parameters[i].getType();
            if (AnnotatedElementUtils.hasAnnotation(parameters[i], LeaderEpoch.class)) {
                if (type != long.class && type != Long.class) {
                    throw attributes.invalid("parameter " + i + " (" + type.getSimpleName() + ") is annotated "
                            + "@LeaderEpoch, which only a long or Long parameter may be");
                }
                epochs.add(i);
            } else if (type == LeaderTerm.class) {
                terms.add(i);
            }
        }
        return new LeaderOnlyMethod(attributes.description(), election,
                terms.stream().mapToInt(Integer::intValue).toArray(),
                epochs.stream().mapToInt(Integer::intValue).toArray(),
                MethodAttributes.skipValue(method.getReturnType()));
    }

    /** e.g. {@code Billing.run(LeaderTerm)}. */
    String description() {
        return description;
    }

    /** The election's name, placeholders resolved. */
    String election() {
        return election;
    }

    Object skipValue() {
        return skipValue;
    }

    /** Puts the term and its epoch into the call's arguments, in place of the caller's. */
    void inject(Object[] arguments, LeaderTerm term, long epoch) {
        for (int i : termParameters) {
            arguments[i] = term;
        }
        for (int i : epochParameters) {
            arguments[i] = epoch;
        }
    }
}
