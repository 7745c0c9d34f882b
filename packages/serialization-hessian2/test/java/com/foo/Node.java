package com.foo;

/** A linked node, for cycles and shared references. */
public class Node implements java.io.Serializable {
  public String name;
  public Node next;

  public Node() {}

  public Node(String name) {
    this.name = name;
  }
}
