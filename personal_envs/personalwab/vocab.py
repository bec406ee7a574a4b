"""Word lists for the PersonalWAB data generator (written for this project).

The value sets of the profile fields follow the conventions of the official ``user_profiles.json``
(Age bands such as ``"25-34"``, ``Low``/``Medium``/``High`` levels, comma-separated free-text lists for the
other fields); the words themselves, the product catalogue structure, the brand names (invented from syllables)
and all sentence templates are this project's own.

Catalogue structure: five main categories (the Amazon Reviews 2023 category names used by the benchmark, with
underscores as in its ``main_category`` values), each with themes; a theme is an ordered chain of product nouns
that users buy in order (camera, then lens, then memory card ...), which gives the purchase sequences the
co-purchase structure a sequential recommender can learn.
"""

from __future__ import annotations

from dataclasses import dataclass

# --- profiles ---------------------------------------------------------------------------------------------------

PROFILE_FIELDS: tuple[str, ...] = (
    "Gender",
    "Age",
    "Occupation",
    "Price Sensitivity",
    "Shopping Interest",
    "Brand Preference",
    "Diversity Preference",
    "Interaction Complexity",
    "Tone and Style",
    "Item Reference",
    "Focus Aspect",
)
LEVELS: tuple[str, ...] = ("Low", "Medium", "High")
GENDERS: tuple[tuple[str, float], ...] = (("Female", 0.75), ("Male", 0.25))
AGE_BANDS: tuple[tuple[str, float], ...] = (
    ("18-24", 0.04),
    ("25-34", 0.4),
    ("35-44", 0.38),
    ("45-49", 0.07),
    ("50-55", 0.04),
    ("56+", 0.07),
)
OCCUPATIONS: tuple[tuple[str, float], ...] = (
    ("Other", 0.3),
    ("Homemaker", 0.15),
    ("Writer", 0.1),
    ("Self-employed", 0.06),
    ("Retired", 0.06),
    ("Customer service", 0.05),
    ("College/grad student", 0.05),
    ("Programmer", 0.05),
    ("Artist", 0.03),
    ("Doctor/health care", 0.03),
    ("Technician/Engineer", 0.03),
    ("Nurse", 0.03),
    ("Teacher", 0.03),
    ("Chef", 0.02),
    ("Photographer", 0.01),
)
LEVEL_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "Price Sensitivity": (0.2, 0.65, 0.15),
    "Diversity Preference": (0.12, 0.68, 0.2),
    "Interaction Complexity": (0.12, 0.73, 0.15),
}

#: Tone words and, for each, sentence templates a review in that tone opens with (positive, negative);
#: ``{noun}`` is the product noun. Every generated review contains one of them for one of the user's tone words.
TONE_PHRASES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Enthusiastic": (
        ("Absolutely love this {noun}!", "I'm thrilled with this {noun}!", "Wow, what a great {noun}!"),
        ("I was so excited for this {noun}, but it let me down!", "I really wanted to love this {noun}!"),
    ),
    "Positive": (
        ("Really happy with this {noun}.", "Very pleased with this {noun}.", "So glad I picked up this {noun}."),
        ("I tried to stay positive about this {noun}.", "I hoped for the best with this {noun}."),
    ),
    "Detailed": (
        ("Here is my detailed take on this {noun}.", "After a close look at every part of this {noun}, I'm impressed."),
        ("Here is my detailed take on this {noun}.", "After a close look at every part of this {noun}, I'm unconvinced."),
    ),
    "Practical": (
        ("It does exactly what a {noun} should.", "A practical choice of {noun} for daily use."),
        ("Not very practical as a {noun}.", "In practice this {noun} falls short."),
    ),
    "Critical": (
        ("Even as a critical buyer I approve of this {noun}.", "Hard to fault this {noun}."),
        ("I have to be critical about this {noun}.", "Several flaws with this {noun}."),
    ),
    "Straightforward": (
        ("Straightforward: a good {noun}.", "Simply put, a solid {noun}."),
        ("Straightforward: a poor {noun}.", "Simply put, a weak {noun}."),
    ),
    "Appreciative": (
        ("I really appreciate this {noun}.", "Grateful I found this {noun}."),
        ("I appreciate the effort behind this {noun}, but it misses.", "I wanted to appreciate this {noun}."),
    ),
    "Honest": (
        ("Honestly, a very good {noun}.", "To be honest, I like this {noun} a lot."),
        ("Honestly, a disappointing {noun}.", "To be honest, I regret buying this {noun}."),
    ),
    "Concise": (("Short version: good {noun}.", "In brief: a good {noun}."),
                ("Short version: not a good {noun}.", "In brief: a poor {noun}.")),
    "Informative": (
        ("For anyone comparing options, this {noun} is a safe pick.", "Useful info about this {noun}: it delivers."),
        ("For anyone comparing options, skip this {noun}.", "Useful warning about this {noun}: it underdelivers."),
    ),
    "Humorous": (
        ("My wallet cried but my heart sings over this {noun}.", "Ten out of ten, would buy this {noun} again."),
        ("This {noun} was a comedy of errors.", "I laughed, then I cried at this {noun}."),
    ),
    "Casual": (("Pretty cool {noun}.", "Yeah, nice {noun}."), ("Meh, not a great {noun}.", "Eh, kind of a letdown of a {noun}.")),
    "Supportive": (
        ("Happy to support the maker of this {noun}.", "Glad to recommend this {noun}."),
        ("I want to support this brand, but this {noun} needs work.", "Rooting for the maker, but this {noun} misses."),
    ),
    "Disappointed": (
        ("Not disappointed at all with this {noun}.", "No disappointment with this {noun}."),
        ("Disappointed with this {noun}.", "Quite disappointed by this {noun}."),
    ),
    "Frustrated": (
        ("No frustration at all with this {noun}.", "Finally a hassle-free {noun}."),
        ("Frustrated with this {noun}.", "So frustrating, this {noun}."),
    ),
    "Thoughtful": (
        ("After some thought, I value this {noun}.", "On reflection, a good {noun}."),
        ("After some thought, I doubt this {noun}.", "On reflection, a weak {noun}."),
    ),
}
TONE_WORDS: tuple[str, ...] = tuple(TONE_PHRASES)
#: Tone words drawn first (the real profiles are dominated by these).
COMMON_TONES: tuple[str, ...] = ("Positive", "Enthusiastic", "Detailed", "Practical")

ITEM_REFERENCES: tuple[tuple[str, float], ...] = (
    ("Specific products and brands mentioned in reviews", 0.45),
    ("Specific products, Purchase history, Recommendations", 0.15),
    ("Specific products, personal experiences, recommendations", 0.12),
    ("Specific products, Purchase history", 0.08),
    ("Specific products, personal experiences", 0.07),
    ("Specific products and brands mentioned frequently", 0.07),
    ("Brands and past purchases", 0.06),
)

#: Focus aspects and the word a review mentions for each (the aspect itself, lower-cased).
FOCUS_ASPECTS: tuple[str, ...] = (
    "Average Rating",
    "Number of Ratings",
    "Quality",
    "Brand",
    "Price",
    "Comfort",
    "Functionality",
    "Fit",
    "Durability",
    "Design",
    "Value",
    "Ease of use",
    "Taste",
    "Performance",
)
FOCUS_WEIGHTS: tuple[float, ...] = (0.2, 0.1, 0.2, 0.09, 0.07, 0.05, 0.05, 0.03, 0.03, 0.03, 0.03, 0.04, 0.03, 0.05)
#: One sentence per focus aspect (positive, negative), each naming the aspect in lower case. Placeholders:
#: ``{noun} {brand} {price} {avg} {count} {variant}``.
FOCUS_SENTENCES: dict[str, tuple[str, str]] = {
    "Average Rating": ("It earns its {avg} average rating.", "I don't see how it got a {avg} average rating."),
    "Number of Ratings": (
        "The number of ratings ({count}) gave me confidence, and it holds up.",
        "Despite the number of ratings ({count}), mine was not good.",
    ),
    "Quality": ("The quality is excellent for a {noun}.", "The quality is lower than I expected."),
    "Brand": ("{brand} is a brand I trust.", "I expected more from the {brand} brand."),
    "Price": ("Great price at ${price}.", "The price of ${price} is too high for what you get."),
    "Comfort": ("Comfort is top notch.", "Comfort is lacking."),
    "Functionality": ("Functionality is exactly what I needed.", "Functionality is limited."),
    "Fit": ("The fit is spot on.", "The fit is off for me."),
    "Durability": ("Durability seems great so far.", "Durability is a concern; it showed wear quickly."),
    "Design": ("The design looks sleek in {variant}.", "The design feels dated."),
    "Value": ("Excellent value for the money.", "Poor value for the money."),
    "Ease of use": ("Ease of use is great; it took minutes to start.", "Ease of use is poor; it was confusing."),
    "Taste": ("The taste is delicious.", "The taste is bland."),
    "Performance": ("Performance is impressive.", "Performance is underwhelming."),
}

# --- catalogue ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theme:
    """A shopping theme: ``chain`` lists product nouns in the order users tend to buy them."""

    name: str
    label: str  # how a user refers to it ("my coffee setup")
    chain: tuple[str, ...]
    subcategory: str
    materials: tuple[str, ...]
    descriptors: tuple[str, ...]
    interests: tuple[str, ...]  # Shopping Interest phrases that lead to this theme


@dataclass(frozen=True)
class Category:
    """A main category: its official-style id, display name, themes and attribute pools."""

    main_category: str
    display: str
    themes: tuple[Theme, ...]
    variants: tuple[str, ...]  # colours, flavours or scents
    variant_key: str  # the ``details`` key for the variant
    sizes: tuple[str, ...]
    size_key: str
    price_range: tuple[float, float]
    detail_extras: tuple[tuple[str, tuple[str, ...]], ...]
    interests: tuple[str, ...]  # broad interest phrases for the whole category


CATEGORIES: tuple[Category, ...] = (
    Category(
        main_category="Electronics",
        display="Electronics",
        themes=(
            Theme(
                "photography", "photography gear",
                ("camera", "camera lens", "memory card", "tripod", "camera bag", "lens cleaning kit"),
                "Camera & Photo",
                ("aluminum", "carbon fiber", "magnesium alloy", "polycarbonate", "nylon"),
                ("compact", "mirrorless", "weatherproof", "lightweight", "professional", "4K", "stabilized"),
                ("Photography", "Camera gear"),
            ),
            Theme(
                "home_office", "home office setup",
                ("wireless mouse", "mechanical keyboard", "monitor stand", "USB-C hub", "webcam", "laptop stand"),
                "Computers & Accessories",
                ("aluminum", "ABS plastic", "steel", "silicone", "bamboo"),
                ("ergonomic", "wireless", "backlit", "quiet", "adjustable", "portable", "rechargeable"),
                ("Tech gadgets", "Computer accessories", "Office supplies"),
            ),
            Theme(
                "audio", "audio setup",
                ("bluetooth headphones", "headphone case", "portable speaker", "audio cable", "earbud tips"),
                "Headphones & Audio",
                ("memory foam", "silicone", "braided nylon", "aluminum", "leather"),
                ("noise cancelling", "waterproof", "bass boosted", "foldable", "wireless", "hi-fi", "sweatproof"),
                ("Music", "Audio equipment", "Headphones"),
            ),
            Theme(
                "phone", "phone accessories",
                ("phone case", "screen protector", "wireless charger", "car mount", "power bank"),
                "Cell Phone Accessories",
                ("tempered glass", "TPU", "silicone", "leather", "polycarbonate"),
                ("shockproof", "slim", "fast charging", "magnetic", "anti-scratch", "clear", "rugged"),
                ("Phone accessories", "Mobile accessories", "Gadgets"),
            ),
            Theme(
                "smart_home", "smart home",
                ("smart plug", "wifi router", "security camera", "smart bulb", "wifi extender"),
                "Smart Home",
                ("ABS plastic", "aluminum", "polycarbonate", "steel"),
                ("dual band", "voice controlled", "night vision", "energy saving", "app controlled", "mesh"),
                ("Smart home devices", "Home automation"),
            ),
        ),
        variants=("Black", "White", "Silver", "Space Gray", "Blue", "Red", "Rose Gold", "Green", "Navy", "Graphite"),
        variant_key="Color",
        sizes=("Small", "Standard", "Large", "XL", "Mini", "Compact"),
        size_key="Size",
        price_range=(8.0, 400.0),
        detail_extras=(
            ("Connectivity Technology", ("Bluetooth", "USB", "Wi-Fi", "Wired")),
            ("Power Source", ("Battery Powered", "Corded Electric", "USB")),
        ),
        interests=("Electronics", "Tech gadgets", "Electronics & accessories"),
    ),
    Category(
        main_category="Home_and_Kitchen",
        display="Home & Kitchen",
        themes=(
            Theme(
                "coffee", "coffee corner",
                ("coffee maker", "coffee grinder", "milk frother", "travel mug", "coffee canister"),
                "Coffee, Tea & Espresso",
                ("stainless steel", "glass", "ceramic", "BPA-free plastic", "copper"),
                ("programmable", "single serve", "burr", "insulated", "double wall", "vacuum sealed", "barista"),
                ("Kitchen appliances", "Coffee", "Kitchenware"),
            ),
            Theme(
                "baking", "baking",
                ("stand mixer", "baking sheet", "spatula set", "measuring cups", "cooling rack", "cake pan"),
                "Bakeware",
                ("silicone", "stainless steel", "aluminized steel", "nonstick carbon steel", "glass"),
                ("nonstick", "heavy duty", "dishwasher safe", "oven safe", "tilt-head", "commercial grade"),
                ("Baking", "Kitchen & Dining", "Kitchen gadgets"),
            ),
            Theme(
                "bedding", "bedroom",
                ("pillow", "sheet set", "duvet cover", "mattress topper", "throw blanket"),
                "Bedding",
                ("cotton", "microfiber", "bamboo", "linen", "memory foam", "flannel"),
                ("cooling", "hypoallergenic", "breathable", "deep pocket", "queen size", "king size", "fluffy"),
                ("Home decor", "Home goods", "Bedding"),
            ),
            Theme(
                "cleaning", "cleaning routine",
                ("cordless vacuum", "vacuum filter", "storage bins", "drawer organizer", "microfiber cloths"),
                "Storage & Cleaning",
                ("plastic", "fabric", "bamboo", "microfiber", "HEPA"),
                ("stackable", "cordless", "foldable", "washable", "lightweight", "heavy duty", "clear"),
                ("Home essentials", "Home organization", "Cleaning supplies"),
            ),
            Theme(
                "cookware", "cookware",
                ("skillet", "saucepan", "utensil set", "cutting board", "knife set"),
                "Cookware",
                ("cast iron", "stainless steel", "hard anodized aluminum", "ceramic", "acacia wood"),
                ("nonstick", "induction ready", "pre-seasoned", "oven safe", "dishwasher safe", "tri-ply"),
                ("Cooking", "Kitchenware", "Home & Kitchen"),
            ),
        ),
        variants=("Black", "White", "Gray", "Sage Green", "Navy Blue", "Cream", "Charcoal", "Red", "Teal", "Beige"),
        variant_key="Color",
        sizes=("Small", "Medium", "Large", "Queen", "King", "12 Inch", "10 Inch", "Set of 4"),
        size_key="Size",
        price_range=(6.0, 300.0),
        detail_extras=(
            ("Care Instructions", ("Hand Wash Only", "Dishwasher Safe", "Machine Wash")),
            ("Special Feature", ("Easy to Clean", "Lightweight", "Durable")),
        ),
        interests=("Home & Kitchen", "Home goods", "Kitchenware", "Home essentials"),
    ),
    Category(
        main_category="Clothing_Shoes_and_Jewelry",
        display="Clothing, Shoes & Jewelry",
        themes=(
            Theme(
                "running", "running gear",
                ("running shoes", "athletic socks", "running shorts", "running shirt", "running jacket"),
                "Athletic",
                ("mesh", "polyester", "nylon", "merino wool", "spandex"),
                ("breathable", "moisture-wicking", "lightweight", "cushioned", "reflective", "quick-dry"),
                ("Fitness", "Activewear", "Running"),
            ),
            Theme(
                "casual", "everyday wardrobe",
                ("jeans", "t-shirt", "hoodie", "leather belt", "sneakers"),
                "Casual Wear",
                ("denim", "cotton", "fleece", "leather", "canvas", "cotton blend"),
                ("slim fit", "relaxed fit", "stretch", "classic", "vintage", "oversized", "soft"),
                ("Clothing", "Fashion", "Casual wear"),
            ),
            Theme(
                "jewelry", "jewelry collection",
                ("necklace", "earrings", "bracelet", "ring", "jewelry box"),
                "Jewelry",
                ("sterling silver", "14K gold plated", "stainless steel", "rose gold", "pearl"),
                ("dainty", "hypoallergenic", "minimalist", "adjustable", "layered", "handmade", "engraved"),
                ("Jewelry", "Accessories", "Gifts"),
            ),
            Theme(
                "outdoor", "outdoor wear",
                ("hiking boots", "rain jacket", "fleece pullover", "beanie", "insulated gloves"),
                "Outdoor Clothing",
                ("Gore-Tex", "fleece", "nylon", "wool", "leather"),
                ("waterproof", "insulated", "windproof", "packable", "thermal", "rugged"),
                ("Outdoor gear", "Outdoor clothing", "Hiking"),
            ),
            Theme(
                "lounge", "loungewear",
                ("pajama set", "slippers", "bathrobe", "lounge pants"),
                "Sleep & Lounge",
                ("flannel", "cotton", "fleece", "modal", "terry cloth"),
                ("cozy", "plush", "soft", "relaxed", "memory foam", "warm"),
                ("Loungewear", "Footwear", "Comfort clothing"),
            ),
        ),
        variants=("Black", "Navy", "Heather Gray", "Olive", "Burgundy", "White", "Khaki", "Pink", "Gold", "Silver"),
        variant_key="Color",
        sizes=("XS", "Small", "Medium", "Large", "X-Large", "8", "9", "10", "One Size"),
        size_key="Size",
        price_range=(7.0, 180.0),
        detail_extras=(
            ("Fabric Type", ("100% Cotton", "Polyester Blend", "Nylon Blend")),
            ("Department", ("Womens", "Mens", "Unisex")),
        ),
        interests=("Clothing", "Fashion", "Footwear", "Accessories"),
    ),
    Category(
        main_category="Grocery_and_Gourmet_Food",
        display="Grocery & Gourmet Food",
        themes=(
            Theme(
                "coffee_tea", "coffee and tea stash",
                ("ground coffee", "coffee pods", "green tea", "coffee creamer", "raw honey"),
                "Beverages",
                ("whole bean", "organic", "fair trade", "loose leaf", "powdered"),
                ("dark roast", "medium roast", "decaf", "single origin", "smooth", "bold", "unsweetened"),
                ("Coffee", "Tea", "Beverages"),
            ),
            Theme(
                "snacks", "snack drawer",
                ("trail mix", "protein bars", "popcorn", "beef jerky", "dark chocolate"),
                "Snack Foods",
                ("organic", "gluten-free", "non-GMO", "keto", "vegan"),
                ("crunchy", "chewy", "low sugar", "high protein", "kettle cooked", "individually wrapped"),
                ("Snacks", "Food", "Treats"),
            ),
            Theme(
                "pantry", "pantry",
                ("olive oil", "pasta", "marinara sauce", "spice blend", "sea salt"),
                "Pantry Staples",
                ("extra virgin", "organic", "imported", "whole wheat", "all natural"),
                ("cold pressed", "Italian", "authentic", "small batch", "savory", "no salt added"),
                ("Cooking ingredients", "Gourmet food", "Pantry staples"),
            ),
            Theme(
                "breakfast", "breakfast shelf",
                ("granola", "oatmeal", "maple syrup", "peanut butter", "almond butter"),
                "Breakfast Foods",
                ("organic", "gluten-free", "non-GMO", "whole grain", "natural"),
                ("creamy", "crunchy", "steel cut", "pure", "no sugar added", "high fiber"),
                ("Breakfast foods", "Healthy food", "Food & beverages"),
            ),
        ),
        variants=("Vanilla", "Original", "Sea Salt", "Honey", "Cinnamon", "Chocolate", "Caramel", "Mint", "Berry",
                  "Unflavored"),
        variant_key="Flavor",
        sizes=("8 oz", "12 oz", "16 oz", "24 oz", "Pack of 6", "Pack of 12", "2 lb", "32 Count"),
        size_key="Unit Count",
        price_range=(3.0, 45.0),
        detail_extras=(
            ("Diet Type", ("Vegetarian", "Gluten Free", "Keto", "Vegan")),
            ("Package Information", ("Bag", "Jar", "Box", "Bottle")),
        ),
        interests=("Food", "Snacks", "Gourmet food", "Food & beverages"),
    ),
    Category(
        main_category="Health_and_Household",
        display="Health & Household",
        themes=(
            Theme(
                "supplements", "supplement routine",
                ("multivitamin", "vitamin D3", "fish oil", "probiotic", "magnesium glycinate"),
                "Vitamins & Dietary Supplements",
                ("softgel", "capsule", "gummy", "tablet", "powder"),
                ("high potency", "third party tested", "vegan", "non-GMO", "extra strength", "daily"),
                ("Health supplements", "Vitamins", "Health & wellness"),
            ),
            Theme(
                "oral_care", "oral care routine",
                ("electric toothbrush", "brush heads", "water flosser", "whitening toothpaste", "mouthwash"),
                "Oral Care",
                ("soft bristle", "fluoride", "alcohol-free", "charcoal", "rechargeable"),
                ("sonic", "whitening", "sensitive", "cordless", "travel", "gentle"),
                ("Personal care", "Oral care", "Health & personal care"),
            ),
            Theme(
                "household", "household supplies",
                ("dish soap", "dishwasher pods", "paper towels", "trash bags", "all-purpose cleaner"),
                "Household Supplies",
                ("plant-based", "concentrated", "biodegradable", "recycled", "scented"),
                ("heavy duty", "eco-friendly", "fragrance free", "bulk", "streak-free", "tear resistant"),
                ("Household supplies", "Cleaning supplies", "Health & household"),
            ),
            Theme(
                "wellness", "recovery and wellness",
                ("massage gun", "heating pad", "foam roller", "acupressure mat", "pain relief patches"),
                "Wellness & Relaxation",
                ("high density foam", "cotton", "microplush", "EVA", "natural rubber"),
                ("deep tissue", "cordless", "auto shut-off", "textured", "portable", "therapeutic"),
                ("Wellness", "Fitness recovery", "Health & fitness"),
            ),
        ),
        variants=("Unscented", "Lavender", "Fresh Mint", "Lemon", "Eucalyptus", "Citrus", "Original", "Black",
                  "Blue", "Gray"),
        variant_key="Scent",
        sizes=("30 Count", "60 Count", "90 Count", "120 Count", "Pack of 2", "Pack of 4", "16 fl oz", "Standard"),
        size_key="Size",
        price_range=(4.0, 160.0),
        detail_extras=(
            ("Item Form", ("Liquid", "Capsule", "Sheet", "Device")),
            ("Age Range (Description)", ("Adult", "All Ages")),
        ),
        interests=("Health & household", "Personal care", "Health products", "Wellness"),
    ),
)

# --- brands and product lines -------------------------------------------------------------------------------------

BRAND_PREFIXES: tuple[str, ...] = (
    "Vel", "Nor", "Kai", "Lum", "Tru", "Zen", "Ori", "Bri", "Cal", "Dax", "Elm", "Fen", "Gal", "Hol", "Ivo",
    "Jun", "Kes", "Lor", "Mav", "Nex", "Oak", "Pax", "Quin", "Rov", "Sol", "Tal", "Ume", "Vor", "Wyn", "Yar",
    "Arc", "Bex", "Cor", "Dun", "Evo", "Fal", "Gro", "Hux", "Ink", "Jor",
)
BRAND_SUFFIXES: tuple[str, ...] = (
    "ora", "ex", "ity", "wave", "craft", "field", "line", "ly", "io", "ar", "en", "ix", "ova", "stone", "well",
    "peak", "nest", "haven", "mark", "tek",
)
LINE_NAMES: tuple[str, ...] = (
    "Pro", "Lite", "Max", "Air", "Classic", "Essential", "Plus", "Elite", "Go", "Prime", "Flex", "Core", "Ultra",
    "Studio", "Sport", "Eco", "Signature", "Select", "Nova", "Zenith", "Aero", "Terra", "Luxe", "Vita",
)
PRICE_TIERS: tuple[tuple[str, float], ...] = (("budget", 0.55), ("mid", 1.0), ("premium", 1.9))

# --- instruction and review phrasing ------------------------------------------------------------------------------

#: Circumstances a review may tell (real reviews are mostly about the buyer's situation, which differs from one
#: purchase to the next): what makes two reviews of the same user differ.
REVIEW_CIRCUMSTANCES: tuple[str, ...] = (
    "Bought it as a gift for my sister and she kept asking where I found it.",
    "It arrived a day late, but the box was well packed.",
    "My old one broke last month, so the timing was right.",
    "We took it on a weekend trip to the lake.",
    "The kids figured it out before I did.",
    "I ordered it during a sale and almost forgot about it.",
    "My husband was skeptical at first.",
    "Customer service answered my question within an hour.",
    "I compared three others in the store before ordering online.",
    "It replaced something I had for ten years.",
    "The instructions were confusing, so I watched a video.",
    "Shipping took almost two weeks.",
    "A friend recommended it after seeing mine.",
    "I use it mostly on weekends.",
    "The color looks a little different than in the photos.",
    "It took a few days to get used to.",
    "I bought a second one for my parents.",
    "Our apartment is small, so size mattered.",
    "It was the last one in stock.",
    "I had to return the first one because it was damaged in transit.",
    "My dog seems to like it too.",
    "Used it every day during the holidays.",
    "I read dozens of reviews before choosing.",
    "It came with a handwritten thank-you note.",
    "Setting it up took about five minutes.",
    "I wish I had bought it sooner.",
    "The packaging was mostly plastic, which I did not love.",
    "It fits nicely on the shelf next to the window.",
    "My coworker has the same one.",
    "I needed it for a move across town.",
)

SEARCH_OPENERS: dict[str, tuple[str, ...]] = {
    "Enthusiastic": ("Hey there! I'm super excited to find", "Oh, I'd love to get my hands on"),
    "Positive": ("Hi! I'm hoping to find", "Hello! I'd be happy to find"),
    "Detailed": ("I'm searching for a specific item:", "Here is exactly what I want:"),
    "Practical": ("I need", "I'm looking to buy"),
    "Critical": ("I'm picky, so please find", "Only show me"),
    "Straightforward": ("Find me", "Search for"),
    "Concise": ("Looking for", "Need"),
    "Casual": ("Hey, can you dig up", "Yo, looking for"),
}
RECOMMEND_REQUESTS: tuple[str, ...] = (
    "Can you recommend something that goes with what I've bought recently for my {label}?",
    "I'd like a suggestion for my {label} that fits with my recent purchases.",
    "What should I get next for my {label}? Something that complements what I already have.",
    "Any recommendations to round out my {label}, based on what I bought lately?",
    "Could you suggest the next thing I might need for my {label}?",
)
REVIEW_REQUESTS: tuple[str, ...] = (
    "Can you help me write a review for this {noun}? {hint}",
    "Please write a review of the {noun} I just got. {hint}",
    "I want to post a review for my new {noun}. {hint}",
    "Help me put my thoughts on this {noun} into a review. {hint}",
)

#: Size options per theme (the category's ``sizes`` where a theme has none).
THEME_SIZES: dict[str, tuple[str, ...]] = {
    "photography": ("Compact", "Standard", "Large", "64GB", "128GB", "50mm"),
    "home_office": ("Compact", "Standard", "Full Size", "Tenkeyless", "7-in-1", "15.6 Inch"),
    "audio": ("Standard", "Compact", "6 ft", "10 ft", "Small", "Medium", "Large"),
    "phone": ("6.1 Inch", "6.7 Inch", "10000mAh", "20000mAh", "15W", "2 Pack"),
    "smart_home": ("1 Pack", "2 Pack", "4 Pack", "AX1800", "AX3000", "1080p", "2K"),
    "coffee": ("12 Cup", "5 Cup", "Single Serve", "12 oz", "16 oz", "20 oz", "1 lb"),
    "baking": ("5 Quart", "6 Quart", "Half Sheet", "Quarter Sheet", "9 Inch", "Set of 3", "Set of 4"),
    "bedding": ("Twin", "Full", "Queen", "King", "Standard", "50x60 Inch"),
    "cleaning": ("Compact", "Standard", "2 Pack", "4 Pack", "6 Pack", "12 Pack", "Large"),
    "cookware": ("8 Inch", "10 Inch", "12 Inch", "2 Quart", "3 Quart", "15 Piece", "Set of 5"),
    "running": ("7", "8", "9", "10", "11", "Small", "Medium", "Large"),
    "casual": ("28W x 30L", "32W x 32L", "Small", "Medium", "Large", "X-Large", "9"),
    "jewelry": ("16 Inch", "18 Inch", "Size 6", "Size 7", "Size 8", "One Size"),
    "outdoor": ("8", "9", "10", "Small", "Medium", "Large", "One Size"),
    "lounge": ("Small", "Medium", "Large", "X-Large", "7-8", "9-10"),
    "coffee_tea": ("12 oz", "2 lb", "24 Count", "48 Count", "100 Count", "16 fl oz"),
    "snacks": ("6 oz", "12 Count", "24 Count", "Pack of 6", "Pack of 12", "3.5 oz"),
    "pantry": ("16 fl oz", "1 Liter", "1 lb", "Pack of 4", "24 oz", "2.5 oz", "26.5 oz"),
    "breakfast": ("12 oz", "16 oz", "24 oz", "2 lb", "32 fl oz", "Pack of 4"),
    "supplements": ("60 Count", "90 Count", "120 Count", "180 Count", "30 Servings"),
    "oral_care": ("1 Count", "4 Count", "8 Count", "4.1 oz", "Pack of 3", "16.9 fl oz"),
    "household": ("25 fl oz", "62 Count", "90 Count", "6 Double Rolls", "12 Rolls", "13 Gallon", "32 fl oz"),
    "wellness": ("Standard", "Compact", "12 x 24 Inch", "18 Inch", "36 Inch", "10 Count", "20 Count"),
}
