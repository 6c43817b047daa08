package io.dlock.spring;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;

/**
 * A lock name: plain text, or a template whose {@code #{...}} parts are SpEL expressions evaluated per call against
 * the method's arguments. Parsed once; thread-safe.
 */
final class LockNameTemplate {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final String template;
    /** Null for a plain name. */
    private final Expression expression;
    private final String description;

    private LockNameTemplate(String template, Expression expression, String description) {
        this.template = template;
        this.expression = expression;
        this.description = description;
    }

    /**
     * @param description the method, for messages
     * @throws IllegalArgumentException when the name is blank or its template does not parse
     */
    static LockNameTemplate parse(String template, String description) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("name is blank");
        }
        if (!template.contains(ParserContext.TEMPLATE_EXPRESSION.getExpressionPrefix())) {
            return new LockNameTemplate(template, null, description);
        }
        try {
            return new LockNameTemplate(template, PARSER.parseExpression(template,
                    ParserContext.TEMPLATE_EXPRESSION), description);
        } catch (ParseException e) {
            throw new IllegalArgumentException("name \"" + template + "\" is not a valid template: "
                    + e.getMessage(), e);
        }
    }

    /** @return whether the name is the same for every call */
    boolean isPlain() {
        return expression == null;
    }

    String template() {
        return template;
    }

    /**
     * Evaluates the name for one call.
     *
     * @param beanFactory for {@code @bean} references; may be null
     * @throws IllegalArgumentException when the expression fails or evaluates to a blank name; the message names the
     *                                  method and the template
     */
    String evaluate(Method method, Object[] args, Object target, Class<?> targetClass, BeanFactory beanFactory) {
        if (expression == null) {
            return template;
        }
        String name;
        try {
            MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                    new LockNameRoot(method, args, target, targetClass), method, args, PARAMETER_NAMES);
            if (beanFactory != null) {
                context.setBeanResolver(new BeanFactoryResolver(beanFactory));
            }
            name = expression.getValue(context, String.class);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("@DistributedLocked on " + description + ": lock name \"" + template
                    + "\" could not be evaluated: " + e.getMessage(), e);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("@DistributedLocked on " + description + ": lock name \"" + template
                    + "\" evaluated to a blank name");
        }
        return name;
    }

    /**
     * The root object of a name expression: {@code #root.method}, {@code #root.args}, {@code #root.target},
     * {@code #root.targetClass} (or just {@code method}, {@code args}...).
     */
    static final class LockNameRoot {
        private final Method method;
        private final Object[] args;
        private final Object target;
        private final Class<?> targetClass;

        LockNameRoot(Method method, Object[] args, Object target, Class<?> targetClass) {
            this.method = method;
            this.args = args;
            this.target = target;
            this.targetClass = targetClass;
        }

        public Method getMethod() {
            return method;
        }

        public Object[] getArgs() {
            return args;
        }

        public Object getTarget() {
            return target;
        }

        public Class<?> getTargetClass() {
            return targetClass;
        }
    }
}
