package com.foo;

import java.math.BigDecimal;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A POJO with a field of every declared kind. */
public class Order implements java.io.Serializable {
  public long id;
  public short quantity;
  public double weight;
  public boolean paid;
  public String note;
  public BigDecimal price;
  public Color color;
  public Date at;
  public List<User> items;
  public Set<String> tags;
  public Map<String, Long> counts;
  public int[] codes;
  public Long ref;
}
