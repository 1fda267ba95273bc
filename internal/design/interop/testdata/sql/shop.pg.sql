-- The e-commerce schema of seed 002 ("Migrating from SQL to DynamoDB"),
-- as pg_dump --schema-only writes it: users and their orders, the
-- products an order's lines point at, and follows between users.
SET statement_timeout = 0;
SET client_encoding = 'UTF8';

CREATE TYPE public.order_status AS ENUM ('pending', 'paid', 'shipped', 'cancelled');

CREATE TABLE public.users (
    user_id bigint NOT NULL,
    email character varying(255) NOT NULL,
    name text NOT NULL,
    joined_date timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE public.orders (
    order_id bigint NOT NULL,
    user_id bigint NOT NULL,
    total_amount numeric(12,2) NOT NULL,
    status public.order_status DEFAULT 'pending'::public.order_status NOT NULL,
    order_date timestamp with time zone NOT NULL,
    note text
);

CREATE TABLE public.products (
    product_id integer NOT NULL,
    "SKU" text NOT NULL, /* upper case, so quoted */
    title text NOT NULL,
    price numeric(10,2) NOT NULL,
    tags text[]
);

CREATE TABLE public.order_items (
    order_id bigint NOT NULL REFERENCES public.orders (order_id) ON DELETE CASCADE,
    line_no integer NOT NULL,
    product_id integer NOT NULL,
    quantity integer DEFAULT 1 NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, line_no)
);

CREATE TABLE public.follows (
    follower_id bigint NOT NULL,
    followed_id bigint NOT NULL,
    created_at timestamp without time zone DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT follows_pkey PRIMARY KEY (follower_id, followed_id),
    CONSTRAINT follows_follower_fkey FOREIGN KEY (follower_id) REFERENCES public.users(user_id),
    CONSTRAINT follows_followed_fkey FOREIGN KEY (followed_id) REFERENCES public.users(user_id)
);

CREATE SEQUENCE public.users_user_id_seq START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;

ALTER TABLE ONLY public.users ADD CONSTRAINT users_pkey PRIMARY KEY (user_id);
ALTER TABLE ONLY public.orders ADD CONSTRAINT orders_pkey PRIMARY KEY (order_id);
ALTER TABLE ONLY public.products ADD CONSTRAINT products_pkey PRIMARY KEY (product_id);
ALTER TABLE ONLY public.products ADD CONSTRAINT products_sku_key UNIQUE ("SKU");
ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id);
ALTER TABLE ONLY public.order_items
    ADD CONSTRAINT order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES public.products(product_id);

CREATE UNIQUE INDEX users_email_key ON public.users USING btree (email);
CREATE INDEX orders_user_id_order_date_idx ON public.orders USING btree (user_id, order_date DESC);
CREATE INDEX orders_status_idx ON public.orders USING btree (status);
CREATE INDEX follows_followed_idx ON public.follows (followed_id);
CREATE INDEX users_lower_email_idx ON public.users (lower(email));
CREATE VIEW public.recent_orders AS SELECT * FROM public.orders WHERE order_date > now() - interval '7 days';
