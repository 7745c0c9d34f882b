package com.foo;

public enum Color { RED, GREEN, BLUE }
