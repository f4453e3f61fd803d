"""Listings and worked-example data of Dell'Aglio's thesis "On Unified Stream Reasoning", as written
there (line numbers of the listing removed, whitespace normalised, errata kept). The text file has
no page numbers, so each constant cites its section and its lines in
``../shared/papers/dellaglio-unified-stream-reasoning-thesis.txt``.

The tests run executable restatements of these, next to them, with every change from the text
explained; the constants themselves are the thesis's words.
"""
from __future__ import annotations

# ---- data of the running example ----------------------------------------------------------------

# Example 1 (Sec. 2.1, lines 300-311): the RDF graph G_shops.
EXAMPLE_1_G_SHOPS = """
:a rdf:type :Shop .
:b rdf:type :Shop .
:alice :owns :a .
:bob :owns :b .
"""

# Listing 4.2 (Sec. 4.2, lines 1011-1017): G'_shops, the shops graph after time 13 (Example 6).
# Erratum kept: ":own" where Example 1 and Listing 5.3 say ":owns".
LISTING_4_2_G_SHOPS_AFTER_13 = """
:b rdf:type :Shop .
:bob :own :b .
"""

# Listing 4.1 (Sec. 4.1, lines 965-977): the RDF stream S_nearby.
LISTING_4_1_S_NEARBY = """
:dn1 {:diana :isNearby :a} [2] .
:dn2 {:eve :isNearby :b} [2] .
:dn3 {:carl :isNearby :a} [5] .
:dn4 {:eve :isNearby :a} [7] .
:dn5 {:diana :isNearby :b} [12] .
:dn6 {:carl :isNearby :b} [19] .
:dn7 {:carl :isNearby :b} [21] .
"""

# Listing 5.1 (Sec. 5.1, lines 1174-1182): the RDF stream S_social.
LISTING_5_1_S_SOCIAL = """
:ds1 { :post1 :author :alice ; :contains :c1 .
:c1 :in :a ; :on :armadillo ; :reduce 30 } [8] .
:ds2 { :post2 :author :bob ; :contains :c2 .
:c2 :in :b ; :on :panda ; :reduce 25 } [15] .
"""

# Listing 5.2 (Sec. 5.3, lines 1231-1237): content of the window W^(4,8](S_nearby) (Example 8).
LISTING_5_2_WINDOW_4_8 = """
:dn3 {:carl :isNearby :a} [5] .
:dn4 {:eve :isNearby :a} [7] .
"""

# Example 9 (Sec. 5.3, lines 1279-1283): the content of W1(S_nearby, 9), W1 = (alpha=5, beta=2, t0=1).
EXAMPLE_9_CONTENT_AT_9 = """
:d_n4 { :eve :isNearby :a } [7] .
"""

# Listing 5.3 (Sec. 5.9, lines 1507-1515): the WHERE clause of Q^ex (Example 13).
# Erratum kept: ":offers" where the stream S_social (Listing 5.1) says ":contains".
LISTING_5_3_WHERE = """
WHERE {
WINDOW :w1 { ?shopper :isNearby ?shop }
WINDOW :w2 { ?post :author ?shop_owner ; :offers ?coupon }
?shop_owner :owns ?shop
}
"""

# Table 5.1 (Sec. 5.9/5.10, lines 1527-1531): the timestamped solution mappings of Q^ex, as
# (?shopper, ?shop, ?post, ?shop_owner, ?coupon, timestamp). Erratum kept in row 3: ":alice" where
# the post2 of Listing 5.1 is Bob's (the papers' README also notes it: "row 3 should name :bob").
TABLE_5_1 = (
    (":carl", ":a", ":post1", ":alice", ":c1", 8),
    (":eve", ":a", ":post1", ":alice", ":c1", 8),
    (":diana", ":b", ":post2", ":alice", ":c2", 16),
)

# Listing 6.1 (Sec. 6.1, lines 1567-1577): the G_followers graph.
LISTING_6_1_G_FOLLOWERS = """
:carl :follows :diana .
:carl :follows :eve .
:eve :follows :carl .
"""

# Listing 6.2 (Sec. 6.1, lines 1581-1592): the portion of S_social after 15.
LISTING_6_2_S_SOCIAL_AFTER_15 = """
:ds3 { :post3 :author :diana ; :mentions :c2 .
:c2 :in :b ; :on :panda ; :reduce 25 } [16] .
:ds4 { :post4 :author :eve ; :mentions :c2 .
:c2 :in :b ; :on :panda ; :reduce 25 } [18] .
"""

# Listing 7.1 (Sec. 7.3, lines 1896-1902): the EL++ TBox T_social (description logic, not RDF).
LISTING_7_1_T_SOCIAL = """
Post ⊑ ∃hasAuthor.Person
CouponPubPost ⊑ Post ⊓ ∃contains.Coupon
Coupon ⊑ ∃in.Shop ⊓ ∃on.Produit ⊓ ∃reduce
MentionedCoupon ⊑ Coupon ⊓ ∃mentionedIn.Post
contains ∘ mentionedIn ⊑ propagatedBy
"""

# ---- chapter 8 ------------------------------------------------------------------------------------

# Listing 8.1 (Sec. 8.2, lines 2164-2184): C-SPARQL query Q_1^CS, "it counts every 20 minutes the
# number of shops to which a user was near by in the last 60 minutes". Erratum kept: "((COUNT".
LISTING_8_1 = """
REGISTER STREAM :longStream AS
CONSTRUCT {?shop :totalLong ?totalLong}
FROM STREAM :in [RANGE 60m STEP 20m]
FROM :shops
WHERE{
  SELECT ?shop ((COUNT(?shop) AS ?totalLong)
  WHERE{ ?user :isNearby ?shop}
  GROUP BY ?shop
}
"""

# Example 24 (Sec. 8.2, line 2186), the text of Figure 8.1 ("Sliding windows with different t^0
# values", line 2189); the figure itself is an image and is not in the text file.
EXAMPLE_24_FIGURE_8_1 = (
    "The query defines a time-based sliding window W with the parameters (alpha = 60, beta = 20). "
    "The t0 parameter cannot be explicitly defined and the sliding window can open at different time "
    "instants, as shown in Figure 8.1. This fact influences the portion of the stream that is captured "
    "by the sliding window operators: if we focus on the first window of each sliding window operator, "
    "we can notice that in the first case (t0 = 0), it contains the elements s1, s2 and s3; in the "
    "second case (t0 = 1), it contains the elements s1, s2, s3 and s4; while in the third case "
    "(t0 = 2), the first window captures s3 and s4 only."
)
FIGURE_8_1_FIRST_WINDOWS = {0: ("s1", "s2", "s3"), 1: ("s1", "s2", "s3", "s4"), 2: ("s3", "s4")}

# Listing 8.2 (Sec. 8.3, lines 2205-2230): CQELS query to find the emerging shops.
LISTING_8_2 = """
CONSTRUCT {?shop a :PopularShop}
FROM :shops
WHERE{
  STREAM :in [RANGE 60m STEP 20m] {
    SELECT ?shop (COUNT(*) AS ?totalLong)
    WHERE{ ?user1 :isNearby ?shop }
    GROUP BY ?shop
  }
  STREAM :in [RANGE 20m STEP 20m] {
    SELECT ?shop (COUNT(*) AS ?totalShort)
    WHERE { ?user2 :isNearby ?shop }
    GROUP BY ?shop
  }
  ?shop a :Shop
  FILTER (?totalShort - ?totalLong > $threshold$)
}
"""

# Listing 8.3 (Sec. 8.3, lines 2250-2262): C-SPARQL query whose triple pattern is evaluated against
# the union of the two sliding windows.
LISTING_8_3 = """
REGISTER STREAM :out AS
CONSTRUCT {?shop a :PopularShop}
FROM STREAM :in [RANGE 60m STEP 20m]
FROM STREAM :in [RANGE 20m STEP 20m]
WHERE{
  ?m sioc:topic ?shop.
}
"""

# Listing 8.4 (Sec. 8.3, lines 2266-2279): C-SPARQL query Q_3^CS, computation of the trending shops.
LISTING_8_4 = """
REGISTER STREAM :out AS
CONSTRUCT {?shop a :PopularShop}
FROM STREAM :longStream [RANGE 20m STEP 20m]
FROM STREAM :shortStream [RANGE 20m STEP 20m]
WHERE{
  ?shop :countLong ?totalLong; :countShort ?totalShort.
  FILTER (?totalShort-?totalLong > $threshold$)
}
"""

# Listing 8.5 (Sec. 8.6, lines 2316-2340): the task of Example 26 in the W3C RSP Query Language.
# Errata kept: "AS totalLong" / "AS totalShort" without "?", and the FILTER's parenthesis.
LISTING_8_5 = """
REGISTER STREAM :out
AS CONSTRUCT RSTREAM{ ?shop a :PopularShop}
FROM NAMED WINDOW :lwin ON :in [RANGE PT60M STEP PT20M]
FROM NAMED WINDOW :swin ON :in [RANGE PT20M STEP PT20M]
FROM GRAPH :shops
WHERE{
  ?shop a :Shop
  WINDOW :lwin{
    SELECT ?shop (COUNT(*) AS totalLong)
    WHERE { ?m1 sioc:topic ?shop. }
    GROUP BY ?shop
  }
  WINDOW :swin{
    SELECT ?shop (COUNT(*) AS totalShort)
    WHERE { ?m2 sioc:topic ?shop. }
    GROUP BY ?shop
  }
  FILTER(?totalShort-?totalLong) > $threshold$
}
"""
