/**
 * An example application: a scheduled job that runs on one instance at a time through dlock's Spring Boot starter.
 * Read it for how to use the starter; nothing here is a library.
 */
package io.dlock.examples.scheduled;
