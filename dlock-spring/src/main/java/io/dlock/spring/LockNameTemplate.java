package io.dlock.spring;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A lock name: plain text, or a template whose {@code #{...}} parts are SpEL expressions evaluated per call against
 * the method's arguments. Parsed once, when the proxy is created, and checked then against the method's parameters;
 * thread-safe.
 */
final class LockNameTemplate {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    /** The positional variables of every call: {@code #p0}, {@code #a0}, {@code #p1}... */
    private static final Pattern POSITIONAL = Pattern.compile("[ap](0|[1-9][0-9]{0,3})");

    private final String template;
    /** Null for a plain name. */
    private final Expression expression;
    /** The method whose parameters the template was checked against, and evaluated with. */
    private final Method method;
    private final String description;

    private LockNameTemplate(String template, Expression expression, Method method, String description) {
        this.template = template;
        this.expression = expression;
        this.method = method;
        this.description = description;
    }

    /**
     * @param method      the method whose arguments the template may refer to
     * @param description the annotation and the method, for messages ({@code "@DistributedLocked on
     *                    OrderService.pay(Order)"})
     * @throws IllegalArgumentException when the name is blank, its template does not parse, or it refers to a
     *                                  variable that no call of {@code method} defines (a parameter name that the
     *                                  class file does not carry, a misspelt name, a position past the last
     *                                  parameter): such a variable would evaluate to null on every call
     */
    static LockNameTemplate parse(String template, Method method, String description) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("name is blank");
        }
        if (!template.contains(ParserContext.TEMPLATE_EXPRESSION.getExpressionPrefix())) {
            return new LockNameTemplate(template, null, method, description);
        }
        Expression expression;
        try {
            expression = PARSER.parseExpression(template, ParserContext.TEMPLATE_EXPRESSION);
        } catch (ParseException e) {
            throw new IllegalArgumentException("name \"" + template + "\" is not a valid template: "
                    + e.getMessage(), e);
        }
        Set<String> variables = new LinkedHashSet<>();
        collectVariables(expression, variables);
        checkVariables(template, method, variables);
        return new LockNameTemplate(template, expression, method, description);
    }

    private static void collectVariables(Expression expression, Set<String> into) {
        if (expression instanceof CompositeStringExpression composite) {
            for (Expression part : composite.getExpressions()) {
                collectVariables(part, into);
            }
        } else if (expression instanceof SpelExpression spel) {
            collectVariables(spel.getAST(), into);
        }
    }

    private static void collectVariables(SpelNode node, Set<String> into) {
        if (node instanceof VariableReference) {
            into.add(node.toStringAST().substring(1)); // "#name"
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            collectVariables(node.getChild(i), into);
        }
    }

    /**
     * The variables of a call's evaluation context are those of {@link MethodBasedEvaluationContext}: {@code #root},
     * {@code #this}, {@code #p<i>} and {@code #a<i>} for each argument, and each parameter by its name when the
     * {@link ParameterNameDiscoverer} finds the names ({@code javac -parameters}, or Kotlin's metadata). Anything
     * else would be null on every call.
     */
    private static void checkVariables(String template, Method method, Set<String> variables) {
        int count = method.getParameterCount();
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        for (String variable : variables) {
            if (variable.equals("root") || variable.equals("this")) {
                continue;
            }
            if (POSITIONAL.matcher(variable).matches()) {
                if (Integer.parseInt(variable.substring(1)) >= count) {
                    throw new IllegalArgumentException("name \"" + template + "\" refers to #" + variable
                            + ", but the method has " + count + (count == 1 ? " parameter" : " parameters")
                            + " (#p0 is the first)");
                }
            } else if (names == null && count > 0) {
                throw new IllegalArgumentException("name \"" + template + "\" refers to #" + variable
                        + ", but the parameter names of " + method.getDeclaringClass().getName()
                        + " are not in its class file, so #" + variable + " would be null in every call (all "
                        + "calls would share one lock). Compile with parameter names (javac -parameters; Maven: "
                        + "<parameters>true</parameters> in maven-compiler-plugin's configuration; Gradle: "
                        + "options.compilerArgs << '-parameters'; Spring Boot's build plugins set it), or refer to "
                        + "the parameter by position: #p0 is the first");
            } else if (names == null || !List.of(names).contains(variable)) {
                String parameters = names == null ? "it has none" : "its parameters: "
                        + Arrays.stream(names).map(n -> "#" + n).collect(Collectors.joining(", "));
                throw new IllegalArgumentException("name \"" + template + "\" refers to #" + variable
                        + ", which is not a parameter of the method (" + parameters
                        + "), so it would be null in every call");
            }
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
     * Evaluates the name for one call, with the parameter names of the method it was parsed for (the most specific
     * one, whose names were checked: a call through an interface method gets the implementation's names).
     *
     * @param beanFactory for {@code @bean} references; may be null
     * @throws IllegalArgumentException when the expression fails or evaluates to a blank name; the message names the
     *                                  method and the template
     */
    String evaluate(Object[] args, Object target, Class<?> targetClass, BeanFactory beanFactory) {
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
            throw new IllegalArgumentException(description + ": name \"" + template
                    + "\" could not be evaluated: " + e.getMessage(), e);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(description + ": name \"" + template
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
